// The agent-tests calls of the client library the Tests tab uses, and the shapes its forms edit.
import type { AgentTestCase } from "../../../../sdk/ts/src/index.ts";
import { session } from "../../../lib/session.ts";

export type { AgentTest, AgentVersion, TestResult, TestRun, TestRunWithResults } from "../../../../sdk/ts/src/index.ts";
export type TestCaseInput = AgentTestCase;
export type ScriptTurn = Extract<AgentTestCase["caller"], { type: "script" }>["turns"][number];
export type TestCheck = import("../../../../sdk/ts/src/index.ts").TestResult["checks"][number];
/** An expectation as the form reads it, field by field, whatever its kind (the API checks the kind's fields). */
export type Expectation = { type: string; [field: string]: unknown };

const agents = () => session.client.agents;

export const testsApi = {
  list: (agentId: string) => agents().listTests(agentId, { limit: 100 }).all(),
  get: (agentId: string, testId: string) => agents().getTest(agentId, testId),
  create: (agentId: string, body: TestCaseInput) => agents().createTest(agentId, body),
  update: (agentId: string, testId: string, body: TestCaseInput) => agents().updateTest(agentId, testId, body),
  remove: (agentId: string, testId: string) => agents().deleteTest(agentId, testId),
  fromCall: (agentId: string, callId: string) => agents().createTestFromCall(agentId, { call_id: callId }),
  run: (agentId: string, body: { test_ids?: string[]; version?: number }) => agents().createTestRun(agentId, body),
  runs: (agentId: string, limit = 20) => agents().listTestRuns(agentId, { limit }).then((page) => page.data),
  getRun: (agentId: string, runId: string) => agents().getTestRun(agentId, runId),
  cancel: (agentId: string, runId: string) => agents().cancelTestRun(agentId, runId),
  versions: (agentId: string) => agents().listVersions(agentId, { limit: 50 }).then((page) => page.data),
};
