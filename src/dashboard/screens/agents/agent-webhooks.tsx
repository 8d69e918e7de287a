// The agent's lifecycle webhook: where its call events go and which, the signing secret (shown once,
// rotated after confirming; the old one keeps signing for 24 h), a signed test event, and the recent
// delivery attempts (GET /v1/webhooks/deliveries?agent_id=).
import { useState } from "preact/hooks";
import type { Agent, WebhookTestResult } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Field } from "../../ui/field.tsx";
import { SecretOnce } from "../../ui/secret-once.tsx";
import { Empty, LoadState, ProblemNotice, Success } from "../../ui/status.tsx";
import { DangerButton } from "../../ui/actions.tsx";

type EventType = Agent["webhook_events"][number];

const EVENTS: { type: EventType; label: string }[] = [
  { type: "call.started", label: "call.started: the call is answered" },
  { type: "call.transcript", label: "call.transcript: each finished turn" },
  { type: "call.ended", label: "call.ended: the call is over" },
  { type: "call.error", label: "call.error: a provider or the call failed" },
  { type: "call.transfer", label: "call.transfer: the call is transferred" },
];

export const SIGNING_SECRET_NOTE = "Your receiver checks each event's signature with this secret. Copy it now: it is shown only this once.";

export function AgentWebhooks({ agent, onSaved }: { agent: Agent; onSaved: (agent: Agent) => void }) {
  const [url, setUrl] = useState(agent.webhook_url ?? "");
  const [events, setEvents] = useState<EventType[]>(agent.webhook_events);
  const [saved, setSaved] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const [test, setTest] = useState<WebhookTestResult | null>(null);
  const saving = useAction();
  const acting = useAction();
  const confirm = useConfirm();
  const [deliveries, reloadDeliveries] = useLoad(() => session.client.webhooks.listDeliveries({ agent_id: agent.id, limit: 20 }).then((page) => page.data), [agent.id]);

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const ok = await saving.run(async () => onSaved(await session.client.agents.update(agent.id, { webhook_url: url.trim() || null, webhook_events: events })));
    setSaved(ok);
  };
  const rotate = async () => {
    const ok = await confirm.ask({ title: "Rotate the signing secret?", message: "A new secret signs events from now on. The current one keeps signing alongside it for 24 hours, so switch your receiver over within a day.", action: "Rotate secret" });
    if (ok) await acting.run(async () => setSecret((await session.client.agents.rotateWebhookSecret(agent.id)).webhook_secret));
  };
  const sendTest = async () => {
    setTest(null);
    if (await acting.run(async () => setTest(await session.client.agents.testWebhook(agent.id)))) reloadDeliveries();
  };
  const toggle = (type: EventType, on: boolean) => setEvents(on ? EVENTS.map((e) => e.type).filter((t) => t === type || events.includes(t)) : events.filter((t) => t !== type));
  const fields = saving.problem?.fields ?? {};
  const attempt = test?.attempt;
  return (
    <>
      <form class="panel" onSubmit={save} noValidate aria-labelledby="agent-webhook-title">
        <h2 id="agent-webhook-title">Call events</h2>
        <ProblemNotice problem={saving.problem} />
        {saved && <Success>Webhook saved.</Success>}
        <Field label="Webhook URL" name="webhook_url" type="url" placeholder="https://example.com/parley" hint="Receives this agent's call events, signed. Leave empty to send none." value={url} error={fields.webhook_url} onInput={(e) => setUrl(e.currentTarget.value)} />
        <fieldset class="agents-checks" aria-describedby="agent-events-hint">
          <legend>Events</legend>
          <p class="hint" id="agent-events-hint">
            Which events to send.
          </p>
          {EVENTS.map((each) => (
            <label key={each.type} class="agents-check">
              <input type="checkbox" name="webhook_events" checked={events.includes(each.type)} onChange={(e) => toggle(each.type, e.currentTarget.checked)} />
              <code>{each.label}</code>
            </label>
          ))}
          {fields.webhook_events && <p class="field-error">{fields.webhook_events}</p>}
        </fieldset>
        <div class="actions">
          <button type="submit" class="button primary" disabled={saving.busy}>
            {saving.busy ? "Saving…" : "Save webhook"}
          </button>
        </div>
      </form>

      {secret && (
        <SecretOnce title="New signing secret" label="Signing secret" secret={secret} onDone={() => setSecret(null)}>
          <p>{SIGNING_SECRET_NOTE} The previous secret keeps signing alongside it for 24 hours.</p>
        </SecretOnce>
      )}
      <section class="panel" aria-labelledby="agent-webhook-tools">
        <h2 id="agent-webhook-tools">Secret and test</h2>
        <ProblemNotice problem={acting.problem} />
        {attempt && (
          <div class={attempt.succeeded ? "notice success" : "notice error"} role="status">
            <p>
              Test event {test.event_id}: {attempt.succeeded ? "delivered" : "not delivered"}
              {attempt.status_code !== null && ` (HTTP ${attempt.status_code}`}
              {attempt.status_code !== null && `, ${attempt.duration_ms} ms)`}
              {attempt.error && `: ${attempt.error}`}.
            </p>
          </div>
        )}
        {test && !attempt && <Success>Test event {test.event_id} queued; its delivery is still under way.</Success>}
        <div class="actions agents-start">
          <button type="button" class="button secondary" disabled={acting.busy || !agent.webhook_url} onClick={sendTest}>
            Send test event
          </button>
          <DangerButton disabled={acting.busy} onClick={rotate}>Rotate secret</DangerButton>
        </div>
        {!agent.webhook_url && <p class="hint">Save a webhook URL to send a test event.</p>}
      </section>

      <section aria-labelledby="agent-deliveries-title">
        <div class="agents-row">
          <h2 id="agent-deliveries-title">Recent deliveries</h2>
          <button type="button" class="button ghost" onClick={reloadDeliveries}>
            Refresh
          </button>
        </div>
        <LoadState state={deliveries} label="Loading deliveries…" onRetry={reloadDeliveries} />
        {deliveries.status === "ready" && deliveries.data.length === 0 && <Empty title="No deliveries yet">Events sent to this agent's webhook show here with the receiver's answer.</Empty>}
        {deliveries.status === "ready" && deliveries.data.length > 0 && (
          <DataTable caption="Recent deliveries" columns={["When", "Event", "Attempt", "Result", "Time"]}>
            {deliveries.data.map((each) => (
              <tr key={each.id}>
                <td>{formatDate(each.created_at)}</td>
                <td>
                  <code>{each.event_id}</code>
                </td>
                <td>{each.attempt}</td>
                <td class={each.succeeded ? "" : "status-bad"}>{each.succeeded ? `Delivered (HTTP ${each.status_code})` : each.status_code ? `Failed (HTTP ${each.status_code})` : `Failed: ${each.error ?? "no answer"}`}</td>
                <td>{each.duration_ms} ms</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
      {confirm.dialog}
    </>
  );
}
