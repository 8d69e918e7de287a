// The agent-tests calls of the client library the Tests tab uses, and their types, in one place.
import type { PagePromise } from "../../../../sdk/ts/src/index.ts";
import { session } from "../../../lib/session.ts";

export type ScriptTurn = { say?: string; audio?: string; dtmf?: string; pause_ms?: number; silence_ms?: number; hangup?: true; barge_in?: boolean; barge_in_after_ms?: number; voice?: string };
export type TestCaller = { type: "script"; turns: ScriptTurn[] } | { type: "model"; provider_id: string; model?: string; persona: string; goal: string; opening?: string; max_turns?: number };
export type Expectation = { type: string; [field: string]: unknown };
export interface TestCaseInput {
  name: string;
  description?: string | null;
  caller: TestCaller;
  channel?: "phone" | "web";
  from?: string;
  variables?: Record<string, string | number | boolean>;
  tool_mocks?: { tool: string; result: unknown; ok?: boolean }[];
  expectations: Expectation[];
  timeout_seconds?: number;
}
export interface AgentTest extends TestCaseInput {
  object: "agent_test";
  id: string;
  agent_id: string;
  created_at: string;
  updated_at: string;
}
export interface TestCheck {
  index: number;
  expectation: Record<string, unknown>;
  passed: boolean;
  detail: string;
  actual?: unknown;
}
export interface TestTranscriptTurn {
  role: "agent" | "caller";
  text: string;
  start_ms: number;
  end_ms: number;
  interrupted: boolean;
}
export interface TestResult {
  object: "test_result";
  id: string;
  test_id: string | null;
  name: string;
  status: "queued" | "running" | "passed" | "failed" | "error" | "canceled";
  call_id: string | null;
  recording_url: string | null;
  checks: TestCheck[];
  failures: TestCheck[];
  transcript: TestTranscriptTurn[];
  latencies: { turn: number; perceived_ms: number }[];
  error: string | null;
  diff: null | { previous_run_id: string; previous_status: string; status_changed: boolean; turns: { index: number; role: string; before: string | null; after: string | null }[] };
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
}
export interface TestRun {
  object: "test_run";
  id: string;
  agent_id: string;
  agent_version: number;
  status: "queued" | "running" | "passed" | "failed" | "canceled";
  concurrency: number;
  progress: { total: number; completed: number; passed: number; failed: number; errored: number; running: number; queued: number };
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
}
export interface TestRunWithResults extends TestRun {
  results: TestResult[];
}
export interface AgentVersionRow {
  version: number;
  draft?: boolean;
  live?: boolean;
  created_at: string;
  note: string | null;
}

interface TestsSdk {
  listTests(id: string, query?: { limit?: number }): PagePromise<AgentTest>;
  getTest(id: string, testId: string): Promise<AgentTest>;
  createTest(id: string, body: TestCaseInput): Promise<AgentTest>;
  updateTest(id: string, testId: string, body: Partial<TestCaseInput>): Promise<AgentTest>;
  deleteTest(id: string, testId: string): Promise<void>;
  createTestFromCall(id: string, body: { call_id: string; name?: string }): Promise<AgentTest>;
  createTestRun(id: string, body: { test_ids?: string[]; version?: number; concurrency?: number }): Promise<TestRun>;
  listTestRuns(id: string, query?: { limit?: number }): PagePromise<TestRun>;
  getTestRun(id: string, runId: string): Promise<TestRunWithResults>;
  cancelTestRun(id: string, runId: string): Promise<TestRun>;
}

const sdk = () => session.client.agents as unknown as TestsSdk;

export const testsApi = {
  list: (agentId: string) => sdk().listTests(agentId, { limit: 100 }).all(),
  get: (agentId: string, testId: string) => sdk().getTest(agentId, testId),
  create: (agentId: string, body: TestCaseInput) => sdk().createTest(agentId, body),
  update: (agentId: string, testId: string, body: TestCaseInput) => sdk().updateTest(agentId, testId, body),
  remove: (agentId: string, testId: string) => sdk().deleteTest(agentId, testId),
  fromCall: (agentId: string, callId: string) => sdk().createTestFromCall(agentId, { call_id: callId }),
  run: (agentId: string, body: { test_ids?: string[]; version?: number }) => sdk().createTestRun(agentId, body),
  runs: (agentId: string, limit = 20) => sdk().listTestRuns(agentId, { limit }).then((page) => page.data),
  getRun: (agentId: string, runId: string) => sdk().getTestRun(agentId, runId),
  cancel: (agentId: string, runId: string) => sdk().cancelTestRun(agentId, runId),
  versions: (agentId: string) => session.client.agents.listVersions(agentId, { limit: 50 }).then((page) => page.data as unknown as AgentVersionRow[]),
};
