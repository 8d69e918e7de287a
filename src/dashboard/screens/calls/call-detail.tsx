// One call: what it was (status, numbers, agent, length, cost), its recording with the transcript aligned
// to it (the turn playing is highlighted; a turn seeks), what was extracted, the timeline with each turn's
// latency, and the webhook events sent about it. A live call reloads every 2 s until it ends and its
// extracted fields arrive; it can be ended from here, and a finished one erased, each after confirming,
// or made into a test case of its agent.
import { useCallback, useRef, useState } from "preact/hooks";
import type { Agent, Call, CallEvent } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { formatMicros } from "../../lib/money.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useInterval } from "../../lib/use-interval.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, Loading, ProblemNotice } from "../../ui/status.tsx";
import { counterpart, endReasonText, formatClock, isLive } from "./call-text.ts";
import { CallStatus } from "./calls.tsx";
import { Recording } from "./recording.tsx";
import { SentEvents } from "./sent-events.tsx";
import { Timeline } from "./timeline.tsx";
import { Transcript, type Turn } from "./transcript.tsx";
import { DangerButton } from "../../ui/actions.tsx";
import { MakeTestButton } from "./make-test.tsx";

interface CallData {
  call: Call;
  timeline: CallEvent[];
  agent: Agent | null;
}

async function loadCall(id: string): Promise<CallData> {
  const [call, timeline] = await Promise.all([session.client.calls.get(id), session.client.calls.events(id)]);
  const agent = await session.client.agents.get(call.agent_id).catch(() => null); // a deleted agent leaves its calls
  return { call, timeline: timeline.data, agent };
}

/** After a call ends its extracted fields come a moment later: so many more reloads wait for them. */
const POLLS_AFTER_END = 10;

export function CallDetail({ id }: { id: string }) {
  const [data, reload] = useLoad(() => loadCall(id), [id]);
  const [after, setAfter] = useState(0);
  const call = data.status === "ready" ? data.data.call : null;
  const waiting = !!call && (isLive(call) || (call.extracted === null && !call.erased_at && after < POLLS_AFTER_END));
  useInterval(() => {
    if (call && !isLive(call)) setAfter((n) => n + 1);
    reload();
  }, waiting ? 2000 : null);
  const audio = useRef<HTMLAudioElement>(null);
  const [timeMs, setTimeMs] = useState(0);
  const onTime = useCallback((ms: number) => setTimeMs(ms), []);
  const seek = (ms: number) => {
    const element = audio.current;
    if (!element) return;
    element.currentTime = ms / 1000;
    void element.play().catch(() => undefined); // a browser may refuse to play: the position still moved
  };
  const action = useAction();
  const confirm = useConfirm();
  const hangUp = async () => {
    if (await confirm.ask({ title: "End this call?", message: "The line is cut at once; the caller hears nothing more.", action: "End call" })) {
      if (await action.run(async () => void (await session.client.calls.hangup(id)))) reload();
    }
  };
  const erase = async () => {
    const ok = await confirm.ask({ title: "Erase this call's content?", message: "Its recording, transcript, extracted data and summary are deleted for good. The times, numbers and cost stay for billing.", action: "Erase" });
    if (ok && (await action.run(() => session.client.calls.erase(id)))) reload();
  };

  if (data.status === "loading") return <Loading label="Loading the call…" />;
  if (data.status === "failed")
    return (
      <>
        <PageHeader title="Call" />
        <ProblemNotice problem={data.problem} onRetry={reload} />
        <Link href={PAGES.calls}>Back to calls</Link>
      </>
    );
  const { timeline, agent } = data.data;
  const c = data.data.call;
  const live = isLive(c);
  const turns: Turn[] = c.transcript ?? timeline.filter((e) => e.type === "turn").map((e) => e.data as unknown as Turn);
  return (
    <>
      <Link href={PAGES.calls} class="calls-back">← All calls</Link>
      <PageHeader title={`Call ${c.direction === "inbound" ? "from" : "to"} ${counterpart(c)}`} description={`${c.direction} call · ${formatDate(c.created_at)}`}>
        {live ? (
          <button type="button" class="button danger" disabled={action.busy || c.status !== "in_progress"} onClick={hangUp}>
            End call
          </button>
        ) : (
          !c.erased_at && (
            <>
              {agent && turns.length > 0 && <MakeTestButton call={c} action={action} />}
              <DangerButton disabled={action.busy} onClick={erase}>Erase content</DangerButton>
            </>
          )
        )}
      </PageHeader>
      <ProblemNotice problem={action.problem} />
      <p class="calls-live" role="status">
        {live ? (
          <>
            <span class="calls-dot" aria-hidden="true" /> Live: this page updates every 2 seconds.
          </>
        ) : waiting ? (
          "The call has ended; its extracted fields are on their way."
        ) : null}
      </p>
      <dl class="calls-facts">
        <Fact label="Status"><CallStatus call={c} />{c.end_reason && <span class="muted"> ({endReasonText(c.end_reason)})</span>}</Fact>
        <Fact label="Agent">{agent ? agent.name : <code>{c.agent_id}</code>}</Fact>
        <Fact label="From">{c.from ?? "—"}</Fact>
        <Fact label="To">{c.to ?? "—"}</Fact>
        <Fact label="Answered">{formatDate(c.started_at, "Not answered")}</Fact>
        <Fact label="Duration">{formatClock(c.duration_ms)}</Fact>
        <Fact label="Cost">{formatMicros(c.cost.total, c.cost.currency)}</Fact>
        <Fact label="Carrier">{c.carrier}</Fact>
      </dl>

      <section class="calls-section" aria-labelledby="calls-recording">
        <h2 id="calls-recording">Recording and transcript</h2>
        {c.erased_at ? (
          <Empty title="Erased">
            <p>The recording and transcript were erased on {formatDate(c.erased_at)}.</p>
          </Empty>
        ) : live ? (
          <p class="muted">The recording can be played once the call ends; the transcript below grows as the call goes on.</p>
        ) : c.recording_url ? (
          <Recording callId={c.id} audio={audio} onTime={onTime} />
        ) : (
          <p class="muted">This call has no recording.</p>
        )}
        {!c.erased_at && turns.length > 0 && <p class="hint">Times count from the moment the call was answered, where the recording starts.</p>}
        {!c.erased_at && <Transcript turns={turns} timeMs={timeMs} onSeek={c.recording_url && !live ? seek : null} />}
      </section>

      <section class="calls-section" aria-labelledby="calls-extracted">
        <h2 id="calls-extracted">Extracted fields</h2>
        <Extracted call={c} />
      </section>

      <section class="calls-section" aria-labelledby="calls-timeline">
        <h2 id="calls-timeline">Timeline</h2>
        <Timeline events={timeline} answeredAfterMs={c.started_at ? Date.parse(c.started_at) - Date.parse(c.created_at) : null} />
      </section>

      <section class="calls-section" aria-labelledby="calls-events">
        <h2 id="calls-events">Webhook events</h2>
        <SentEvents call={c} agent={agent} refresh={timeline.length} />
      </section>
      {confirm.dialog}
    </>
  );
}

function Fact({ label, children }: { label: string; children: preact.ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

function Extracted({ call }: { call: Call }) {
  if (call.erased_at) return <p class="muted">Erased with the rest of the call's content.</p>;
  if (call.extracted === null) return <p class="muted">{isLive(call) ? "Filled in when the call ends." : "Not extracted yet."}</p>;
  const fields = Object.entries(call.extracted);
  return (
    <>
      {call.summary && (
        <p>
          <strong>Summary:</strong> {call.summary}
        </p>
      )}
      {fields.length === 0 ? (
        <p class="muted">The agent asks for no fields to be extracted.</p>
      ) : (
        <dl class="calls-facts">
          {fields.map(([name, value]) => (
            <Fact key={name} label={name}>{value === null ? <span class="muted">not found</span> : typeof value === "string" ? value : <code>{JSON.stringify(value)}</code>}</Fact>
          ))}
        </dl>
      )}
    </>
  );
}

