// The agent's test cases (caller, expectations, last result) and its runs: run them all or those ticked,
// against the live version or a draft, and open a past run.
import { useState } from "preact/hooks";
import type { Agent } from "../../../../sdk/ts/src/index.ts";
import { formatDate } from "../../../lib/format.ts";
import { navigate } from "../../../lib/router.ts";
import { useAction } from "../../../lib/use-action.ts";
import { useLoad } from "../../../lib/use-load.ts";
import { DataTable } from "../../../ui/data-table.tsx";
import { SelectField } from "../../../ui/field.tsx";
import { Link } from "../../../ui/link.tsx";
import { Empty, LoadState, ProblemNotice } from "../../../ui/status.tsx";
import { testsApi, type AgentTest, type AgentVersion, type TestResult, type TestRun } from "./api.ts";
import { callerKind } from "./case-draft.ts";
import { testsPath } from "./paths.ts";
import { formatDuration, TestStatus } from "./test-status.tsx";

/** How many recent runs are read for each case's last result. */
const RECENT_RUNS = 5;

async function loadOverview(agentId: string) {
  const [tests, runs, versions] = await Promise.all([testsApi.list(agentId), testsApi.runs(agentId), testsApi.versions(agentId)]);
  // Newest first: the first result met for a case is its last one. A run is read whole (its results carry
  // transcripts), so older runs are read only while some case has none yet.
  const last = new Map<string, { run: TestRun; result: TestResult }>();
  for (const { id } of runs.slice(0, RECENT_RUNS)) {
    if (tests.every((test) => last.has(test.id))) break;
    const run = await testsApi.getRun(agentId, id);
    for (const result of run.results) if (result.test_id && !last.has(result.test_id)) last.set(result.test_id, { run, result });
  }
  return { tests, runs, versions, last };
}

export function TestsOverview({ agent, against }: { agent: Agent; against: string }) {
  const [loaded, reload] = useLoad(() => loadOverview(agent.id), [agent.id]);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [version, setVersion] = useState(against);
  const action = useAction();
  const start = async (ids: string[] | undefined) => {
    await action.run(async () => {
      const run = await testsApi.run(agent.id, { ...(ids ? { test_ids: ids } : {}), ...(version ? { version: Number(version) } : {}) });
      navigate(testsPath(agent.id, { run: run.id }));
    });
  };
  const toggle = (id: string, on: boolean) => setChosen((before) => {
    const next = new Set(before);
    if (on) next.add(id);
    else next.delete(id);
    return next;
  });
  return (
    <section aria-labelledby="tests-title">
      <div class="agents-row">
        <h2 id="tests-title">Tests</h2>
        <Link href={testsPath(agent.id, { case: "new" })} class="button primary">New test</Link>
      </div>
      <p class="hint">Each test is a simulated call to this agent with a scripted (or model-played) caller, checked against what you expect. Test calls are not billed and stay out of the call list and analytics.</p>
      <ProblemNotice problem={action.problem} />
      <LoadState state={loaded} label="Loading tests…" onRetry={reload} />
      {loaded.status === "ready" && loaded.data.tests.length === 0 && (
        <Empty title="No tests yet">
          <p>Write one, or open a past call and choose “Make a test from this call”.</p>
        </Empty>
      )}
      {loaded.status === "ready" && loaded.data.tests.length > 0 && (
        <>
          <DataTable caption="Test cases" columns={["Run", "Name", "Caller", "Expectations", "Last result"]}>
            {loaded.data.tests.map((test) => (
              <CaseRow key={test.id} agentId={agent.id} test={test} chosen={chosen.has(test.id)} onChoose={(on) => toggle(test.id, on)} last={loaded.data.last.get(test.id)} />
            ))}
          </DataTable>
          <div class="tests-run-bar">
            <VersionChoice versions={loaded.data.versions} value={version} onChange={setVersion} />
            <button type="button" class="button primary" disabled={action.busy} onClick={() => start(undefined)}>Run all tests</button>
            <button type="button" class="button secondary" disabled={action.busy || chosen.size === 0} onClick={() => start([...chosen])}>
              Run selected ({chosen.size})
            </button>
          </div>
        </>
      )}
      {loaded.status === "ready" && <PastRuns agentId={agent.id} runs={loaded.data.runs} />}
    </section>
  );
}

function CaseRow({ agentId, test, chosen, onChoose, last }: { agentId: string; test: AgentTest; chosen: boolean; onChoose: (on: boolean) => void; last?: { run: TestRun; result: TestResult } }) {
  return (
    <tr>
      <td>
        <input type="checkbox" class="tests-choose" checked={chosen} aria-label={`Choose “${test.name}”`} onChange={(e) => onChoose(e.currentTarget.checked)} />
      </td>
      <th scope="row">
        <Link href={testsPath(agentId, { case: test.id })}>{test.name}</Link>
      </th>
      <td>{callerKind(test)}</td>
      <td>{test.expectations.length}</td>
      <td>
        {last ? (
          <Link href={testsPath(agentId, { run: last.run.id, result: last.result.id })} aria-label={`${last.result.status}, ${formatDate(last.run.created_at)}: open the result`}>
            <TestStatus status={last.result.status} /> <span class="muted small">{formatDate(last.run.created_at)}</span>
          </Link>
        ) : (
          <span class="muted">Not run yet</span>
        )}
      </td>
    </tr>
  );
}

/** The live version (the default) or another one, drafts marked. */
function VersionChoice({ versions, value, onChange }: { versions: AgentVersion[]; value: string; onChange: (value: string) => void }) {
  const others = versions.filter((v) => !v.live);
  if (others.length === 0) return null;
  const live = versions.find((v) => v.live);
  const options = [{ value: "", label: live ? `Live version (${live.version})` : "Live version" }, ...others.map((v) => ({ value: String(v.version), label: `Version ${v.version}${v.draft ? " (draft)" : ""}${v.note ? ` · ${v.note}` : ""}` }))];
  return <SelectField label="Against" name="version" value={value} onChange={onChange} options={options} />;
}

function PastRuns({ agentId, runs }: { agentId: string; runs: TestRun[] }) {
  return (
    <section class="calls-section" aria-labelledby="tests-runs-title">
      <h3 id="tests-runs-title">Runs</h3>
      {runs.length === 0 ? (
        <p class="muted">No runs yet.</p>
      ) : (
        <DataTable caption="Test runs" columns={["Started", "Version", "Status", "Passed", "Duration"]}>
          {runs.map((run) => (
            <tr key={run.id}>
              <th scope="row">
                <Link href={testsPath(agentId, { run: run.id })}>{formatDate(run.created_at)}</Link>
              </th>
              <td>{run.agent_version}</td>
              <td><TestStatus status={run.status} /></td>
              <td>{run.progress.passed} of {run.progress.total}</td>
              <td>{formatDuration(run.duration_ms)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
