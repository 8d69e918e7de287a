// The agent-tests calls of the client library the Tests tab uses, and the shapes its forms edit.
import type { AgentTestCase } from "../../../../sdk/ts/src/index.ts";
import { session } from "../../../lib/session.ts";

export type { AgentTest, AgentVersion, TestResult, TestRun, TestRunWithResults } from "../../../../sdk/ts/src/index.ts";
export type TestCaseInput = AgentTestCase;
export type ScriptTurn = Extract<AgentTestCase["caller"], { type: "script" }>["turns"][number];
export type TestCheck = import("../../../../sdk/ts/src/index.ts").TestResult["checks"][number];
/** An expectation as the form reads it, field by field, whatever its kind (the API checks the kind's fields). */
export type Expectation = { type: string; [field: string]: unknown };

const tests = () => session.client.agentTests;
const runs = () => session.client.testRuns;

export const testsApi = {
  list: (agentId: string) => tests().list(agentId, { limit: 100 }).all(),
  get: (agentId: string, testId: string) => tests().get(agentId, testId),
  create: (agentId: string, body: TestCaseInput) => tests().create(agentId, body),
  update: (agentId: string, testId: string, body: TestCaseInput) => tests().update(agentId, testId, body),
  remove: (agentId: string, testId: string) => tests().delete(agentId, testId),
  fromCall: (agentId: string, callId: string) => tests().createFromCall(agentId, { call_id: callId }),
  run: (agentId: string, body: { test_ids?: string[]; version?: number }) => runs().create(agentId, body),
  runs: (agentId: string, limit = 20) => runs().list(agentId, { limit }).then((page) => page.data),
  getRun: (agentId: string, runId: string) => runs().get(agentId, runId),
  cancel: (agentId: string, runId: string) => runs().cancel(agentId, runId),
  versions: (agentId: string) => session.client.agents.listVersions(agentId, { limit: 50 }).then((page) => page.data),
};
