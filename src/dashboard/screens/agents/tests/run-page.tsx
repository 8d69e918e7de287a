// One run: its progress while it runs (polled each second), each case passed or failed, and the case
// chosen (the first that failed, unless one is named in the URL) read in full beside its transcript.
import type { Agent } from "../../../../sdk/ts/src/index.ts";
import { formatDate } from "../../../lib/format.ts";
import { useAction } from "../../../lib/use-action.ts";
import { useInterval } from "../../../lib/use-interval.ts";
import { useLoad } from "../../../lib/use-load.ts";
import { DataTable } from "../../../ui/data-table.tsx";
import { Link } from "../../../ui/link.tsx";
import { LoadState, ProblemNotice } from "../../../ui/status.tsx";
import { testsApi, type TestRunWithResults } from "./api.ts";
import { CaseResult } from "./case-result.tsx";
import { testsPath } from "./paths.ts";
import { formatDuration, isRunning, TestStatus } from "./test-status.tsx";

export function RunPage({ agent, runId, resultId }: { agent: Agent; runId: string; resultId: string | null }) {
  const [loaded, reload] = useLoad(() => testsApi.getRun(agent.id, runId), [agent.id, runId]);
  const run = loaded.status === "ready" ? loaded.data : null;
  const chosen = run && chosenOf(run, resultId);
  useInterval(reload, run && isRunning(run.status) ? 1000 : null);
  const action = useAction();
  const cancel = async () => {
    if (await action.run(async () => void (await testsApi.cancel(agent.id, runId)))) reload();
  };
  return (
    <section aria-labelledby="tests-run-title">
      <p>
        <Link href={testsPath(agent.id)}>← All tests</Link>
      </p>
      {!run && <LoadState state={loaded} label="Loading the run…" onRetry={reload} />}
      {run && (
        <>
          <div class="agents-row">
            <h2 id="tests-run-title">Test run of {formatDate(run.created_at)}</h2>
            {isRunning(run.status) && (
              <button type="button" class="button secondary" disabled={action.busy} onClick={cancel}>Cancel run</button>
            )}
          </div>
          <ProblemNotice problem={action.problem} />
          <Progress run={run} />
          <DataTable caption="Cases in this run" columns={["Case", "Result", "Failed expectations", "Duration"]}>
            {run.results.map((result) => (
              <tr key={result.id} aria-current={result.id === chosen?.id ? "true" : undefined}>
                <th scope="row">
                  <Link href={testsPath(agent.id, { run: run.id, result: result.id })}>{result.name}</Link>
                </th>
                <td><TestStatus status={result.status} /></td>
                <td>{result.failures.length || (result.error ? "—" : "none")}</td>
                <td>{formatDuration(result.duration_ms)}</td>
              </tr>
            ))}
          </DataTable>
          {chosen && <CaseResult key={chosen.id} agentId={agent.id} result={chosen} />}
        </>
      )}
    </section>
  );
}

/** The result named in the URL, else the first that failed, else the first finished. */
function chosenOf(run: TestRunWithResults, resultId: string | null) {
  return run.results.find((r) => r.id === resultId) ?? run.results.find((r) => r.status === "failed" || r.status === "error") ?? run.results.find((r) => !isRunning(r.status)) ?? null;
}

function Progress({ run }: { run: TestRunWithResults }) {
  const p = run.progress;
  return (
    <div class="tests-progress" role="status" aria-live="polite">
      <TestStatus status={run.status} />
      <progress max={p.total || 1} value={p.completed} aria-label="Cases finished" />
      <span>
        {p.completed} of {p.total} done · {p.passed} passed · {p.failed} failed{p.errored ? ` · ${p.errored} could not run` : ""}
        {isRunning(run.status) && ` · ${p.running} running, ${p.queued} waiting`}
      </span>
      <span class="muted small">Version {run.agent_version}{run.duration_ms !== null && ` · ${formatDuration(run.duration_ms)}`}</span>
    </div>
  );
}
