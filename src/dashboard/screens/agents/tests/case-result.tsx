// One case of a run read in full: each expectation passed or failed with the check's words, beside the
// transcript (a turn plays the recording from there); the recording, each reply's latency, and what
// changed since the previous run of the same case.
import { useCallback, useRef, useState } from "preact/hooks";
import { Link } from "../../../ui/link.tsx";
import { DataTable } from "../../../ui/data-table.tsx";
import { PAGES } from "../../../paths.ts";
import { Recording } from "../../calls/recording.tsx";
import { Transcript } from "../../calls/transcript.tsx";
import type { TestCheck, TestResult } from "./api.ts";
import { expectationLabel } from "./case-draft.ts";
import { testsPath } from "./paths.ts";
import { isRunning, TestStatus } from "./test-status.tsx";

/** An expectation's fields after its kind, as a person reads them: `turn 1 · contains “hours”`. */
function expectationWords(expectation: Record<string, unknown>): string {
  return Object.entries(expectation)
    .filter(([key]) => key !== "type")
    .map(([key, value]) => `${key.replace(/_/g, " ")} ${typeof value === "string" ? `“${value}”` : JSON.stringify(value)}`)
    .join(" · ");
}

export function CaseResult({ agentId, result }: { agentId: string; result: TestResult }) {
  const audio = useRef<HTMLAudioElement>(null);
  const [timeMs, setTimeMs] = useState(0);
  const onTime = useCallback((ms: number) => setTimeMs(ms), []);
  const playable = !!(result.recording_url && result.call_id);
  const seek = (ms: number) => {
    if (!audio.current) return;
    audio.current.currentTime = ms / 1000;
    void audio.current.play().catch(() => undefined); // a browser may refuse to play: the position still moved
  };
  return (
    <section class="tests-result" aria-labelledby="tests-result-title">
      <h3 id="tests-result-title">
        {result.name} <TestStatus status={result.status} />
      </h3>
      {isRunning(result.status) && <p class="muted">This case has not finished yet.</p>}
      {result.error && <p class="field-error">Could not run: {result.error}</p>}
      {result.call_id && (
        <p>
          <Link href={PAGES.call.replace(":id", encodeURIComponent(result.call_id))}>Open the test call</Link>
        </p>
      )}
      {playable && <Recording callId={result.call_id!} audio={audio} onTime={onTime} />}
      <div class="tests-side">
        <div>
          <h4>Expectations</h4>
          {result.checks.length === 0 ? <p class="muted">No expectation was checked.</p> : <Checks checks={result.checks} />}
        </div>
        <div>
          <h4>Transcript</h4>
          <Transcript turns={result.transcript} timeMs={timeMs} onSeek={playable ? seek : null} />
        </div>
      </div>
      {result.latencies.length > 0 && (
        <>
          <h4>Latency per turn</h4>
          <DataTable caption="Latency per turn" columns={["Agent turn", "The caller waited"]}>
            {result.latencies.map((l) => (
              <tr key={l.turn}>
                <th scope="row">{l.turn}</th>
                <td>{l.perceived_ms} ms</td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
      <Diff agentId={agentId} result={result} />
    </section>
  );
}

function Checks({ checks }: { checks: TestCheck[] }) {
  return (
    <ol class="tests-checks" aria-label="Expectations checked">
      {checks.map((check) => (
        <li key={check.index} class={check.passed ? "tests-check passed" : "tests-check failed"}>
          <span class={`calls-status ${check.passed ? "done" : "bad"}`}>{check.passed ? "Passed" : "Failed"}</span>{" "}
          <strong>{expectationLabel(String(check.expectation.type))}</strong> <span class="muted small">{expectationWords(check.expectation)}</span>
          <p class="tests-detail">{check.detail}</p>
        </li>
      ))}
    </ol>
  );
}

function Diff({ agentId, result }: { agentId: string; result: TestResult }) {
  const diff = result.diff;
  if (!diff) return null;
  return (
    <>
      <h4>Since the previous run</h4>
      <p>
        In <Link href={testsPath(agentId, { run: diff.previous_run_id })}>the previous run</Link> it {diff.status_changed ? <strong>{diff.previous_status}</strong> : diff.previous_status}.{" "}
        {diff.turns.length === 0 ? "The words are the same." : `${diff.turns.length} ${diff.turns.length === 1 ? "turn differs" : "turns differ"}:`}
      </p>
      {diff.turns.length > 0 && (
        <ul class="tests-diff" aria-label="What changed">
          {diff.turns.map((turn) => (
            <li key={turn.index}>
              <span class="calls-speaker">{turn.role === "agent" ? "Agent" : "Caller"}, turn {turn.index + 1}: </span>
              {turn.before !== null && <del>{turn.before}</del>} {turn.after !== null && <ins>{turn.after}</ins>}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
