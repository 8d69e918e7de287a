// The agent's Tests tab: the cases and runs, one case's editor (?case=, `new` for a new one), or one
// run's page (?run=, with the case read in full in ?result=); ?against= picks the version to run (a draft just saved).
import type { Agent } from "../../../../sdk/ts/src/index.ts";
import { useLocation } from "../../../lib/router.ts";
import { CaseEditor } from "./case-editor.tsx";
import { RunPage } from "./run-page.tsx";
import { TestsOverview } from "./tests-overview.tsx";

export function AgentTests({ agent }: { agent: Agent }) {
  const { query } = useLocation();
  const run = query.get("run");
  const test = query.get("case");
  if (run) return <RunPage key={run} agent={agent} runId={run} resultId={query.get("result")} />;
  if (test) return <CaseEditor agent={agent} caseId={test} />;
  return <TestsOverview agent={agent} against={query.get("against") ?? ""} />;
}
