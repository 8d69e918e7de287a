import { t, type Static } from "elysia";
import { NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { nameSchemas } from "../../lib/schema-names.ts";
import { toIso } from "../../lib/time.ts";
import { TEST_RESULT_STATUSES, TEST_RUN_STATUSES, type agentTestResults, type agentTestRuns, type agentTests } from "../../db/schema/agent-tests.ts";
import { Check, Expectation, TestCaller, TestCaseFields, TestCaseInput, ToolMock, TranscriptTurn, TurnLatency, type TestCaseDefinition } from "./definition.ts";

export type TestRow = typeof agentTests.$inferSelect;
export type RunRow = typeof agentTestRuns.$inferSelect;
export type ResultRow = typeof agentTestResults.$inferSelect;

/** A run holds at most this many cases; a bigger suite is split by the client (422 naming test_ids or cases). */
export const MAX_RUN_CASES = 1000;
/** A suite file, an import, holds at most this many cases. */
export const MAX_SUITE_CASES = 1000;
export const DEFAULT_CONCURRENCY = 4;
export const DEFAULT_FROM = "+15550100000";
export const DEFAULT_TIMEOUT_SECONDS = 120;

const Nullable = <T extends Parameters<typeof t.Union>[0][number]>(schema: T) => t.Union([schema, t.Null()]);

export const AgentTest = t.Object({
  object: t.Literal("agent_test"),
  id: t.String({ description: "`atest_…`" }),
  agent_id: t.String(),
  name: TestCaseFields.name,
  description: Nullable(t.String()),
  caller: TestCaller,
  channel: OneOf(["phone", "web"]),
  from: t.String({ description: "E.164 the call comes from (phone)" }),
  variables: t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean()])),
  tool_mocks: t.Array(ToolMock),
  expectations: t.Array(Expectation),
  timeout_seconds: t.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const AgentTestUpdate = t.Partial(t.Object(TestCaseFields), { additionalProperties: false });

export const Progress = t.Object({
  total: t.Integer(),
  completed: t.Integer({ description: "Cases with a verdict (passed, failed, error) or canceled" }),
  passed: t.Integer(),
  failed: t.Integer(),
  errored: t.Integer({ description: "Cases that could not be run to a verdict" }),
  running: t.Integer(),
  queued: t.Integer(),
});

export const TestRun = t.Object({
  object: t.Literal("test_run"),
  id: t.String({ description: "`trun_…`" }),
  agent_id: t.String(),
  agent_version: t.Integer({ description: "The agent version the cases ran against (a draft too)" }),
  status: OneOf(TEST_RUN_STATUSES),
  concurrency: t.Integer({ description: "At most this many of the run's calls at once" }),
  progress: Progress,
  created_at: Timestamp,
  started_at: NullableTimestamp,
  completed_at: NullableTimestamp,
  duration_ms: Nullable(t.Integer()),
});

export const ResultDiff = t.Object(
  {
    previous_run_id: t.String(),
    previous_status: t.String(),
    status_changed: t.Boolean(),
    turns: t.Array(t.Object({ index: t.Integer(), role: OneOf(["agent", "caller"]), before: Nullable(t.String()), after: Nullable(t.String()) }), { description: "Only the transcript turns whose words differ" }),
  },
  { description: "Against the previous result of the same case (same agent, same case name) in an earlier run" },
);

export const TestResult = t.Object({
  object: t.Literal("test_result"),
  id: t.String({ description: "`tres_…`" }),
  test_id: Nullable(t.String({ description: "The stored case; null for a case sent inline with the run" })),
  name: t.String(),
  status: OneOf(TEST_RESULT_STATUSES),
  call_id: Nullable(t.String({ description: "The test call (GET /v1/calls/{id}, its timeline and recording)" })),
  recording_url: Nullable(t.String()),
  checks: t.Array(Check),
  failures: t.Array(Check, { description: "The checks that failed" }),
  transcript: t.Array(TranscriptTurn),
  latencies: t.Array(TurnLatency),
  error: Nullable(t.String({ description: "Why the case could not be judged (status error)" })),
  diff: Nullable(ResultDiff),
  started_at: NullableTimestamp,
  completed_at: NullableTimestamp,
  duration_ms: Nullable(t.Integer()),
});

export const TestRunWithResults = t.Composite([TestRun, t.Object({ results: t.Array(TestResult, { description: "In case order" }) })]);

export const RunCreate = t.Object(
  {
    test_ids: t.Optional(t.Array(t.String(), { minItems: 1, maxItems: MAX_RUN_CASES, description: `Stored cases to run (default: all of the agent's); at most ${MAX_RUN_CASES}` })),
    cases: t.Optional(t.Array(TestCaseInput, { minItems: 1, maxItems: MAX_RUN_CASES, description: "Cases sent inline instead of stored ones (a suite file kept in a repository)" })),
    version: t.Optional(t.Integer({ minimum: 1, description: "The agent version to run (default: the live one); a draft too" })),
    concurrency: t.Optional(t.Integer({ minimum: 1, maximum: 16, default: DEFAULT_CONCURRENCY, description: "Calls at once (default 4)" })),
  },
  { additionalProperties: false },
);

export const TestSuite = t.Object({
  object: t.Literal("test_suite"),
  version: t.Literal(1),
  agent_id: t.String(),
  tests: t.Array(TestCaseInput),
});

export const SuiteImport = t.Object(
  {
    object: t.Optional(t.Literal("test_suite")),
    version: t.Optional(t.Literal(1)),
    agent_id: t.Optional(t.String({ description: "Ignored: a suite exported from one agent may be imported into another" })),
    tests: t.Array(TestCaseInput, { maxItems: MAX_SUITE_CASES }),
  },
  { additionalProperties: false },
);

export const ImportResult = t.Object({ object: t.Literal("test_suite_import"), created: t.Integer(), updated: t.Integer() });

export const FromCall = t.Object(
  { call_id: t.String({ description: "A call of this agent (`call_…`)" }), name: t.Optional(TestCaseFields.name) },
  { additionalProperties: false },
);

export const TestParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), test_id: t.String({ minLength: 1, maxLength: 64 }) });
export const RunParams = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }), run_id: t.String({ minLength: 1, maxLength: 64 }) });

/** A case definition with every default filled in, as stored and shown. */
export function filledDefinition(input: TestCaseDefinition): Required<Omit<TestCaseDefinition, "description">> & { description: string | null } {
  return {
    name: input.name,
    description: input.description ?? null,
    caller: input.caller,
    channel: input.channel ?? "phone",
    from: input.from ?? DEFAULT_FROM,
    variables: input.variables ?? {},
    tool_mocks: input.tool_mocks ?? [],
    expectations: input.expectations,
    timeout_seconds: input.timeout_seconds ?? DEFAULT_TIMEOUT_SECONDS,
  };
}

/** The stored case as a definition (its name is a column of its own). */
export function definitionOf(row: Pick<TestRow, "name" | "definition">): ReturnType<typeof filledDefinition> {
  return { ...(row.definition as Omit<ReturnType<typeof filledDefinition>, "name">), name: row.name };
}

export function testJson(row: TestRow): Static<typeof AgentTest> {
  return { object: "agent_test", id: row.id, agent_id: row.agentId, ...definitionOf(row), created_at: toIso(row.createdAt), updated_at: toIso(row.updatedAt) };
}

export interface ProgressCounts {
  queued: number;
  running: number;
  canceled: number;
}

export function runJson(row: RunRow, counts: ProgressCounts): Static<typeof TestRun> {
  const completed = row.passed + row.failed + row.errored + counts.canceled;
  return {
    object: "test_run",
    id: row.id,
    agent_id: row.agentId,
    agent_version: row.agentVersion,
    status: row.status,
    concurrency: row.concurrency,
    progress: { total: row.total, completed, passed: row.passed, failed: row.failed, errored: row.errored, running: counts.running, queued: counts.queued },
    created_at: toIso(row.createdAt),
    started_at: toIso(row.startedAt),
    completed_at: toIso(row.completedAt),
    duration_ms: row.startedAt !== null && row.completedAt !== null ? row.completedAt - row.startedAt : null,
  };
}

export function resultJson(row: ResultRow): Static<typeof TestResult> {
  const checks = (row.checks ?? []) as Static<typeof Check>[];
  return {
    object: "test_result",
    id: row.id,
    test_id: row.caseId,
    name: row.caseName,
    status: row.status,
    call_id: row.callId,
    recording_url: row.callId ? `/v1/calls/${row.callId}/recording` : null,
    checks,
    failures: checks.filter((check) => !check.passed),
    transcript: (row.transcript ?? []) as Static<typeof TranscriptTurn>[],
    latencies: (row.latencies ?? []) as Static<typeof TurnLatency>[],
    error: row.error,
    diff: (row.diff ?? null) as Static<typeof ResultDiff> | null,
    started_at: toIso(row.startedAt),
    completed_at: toIso(row.completedAt),
    duration_ms: row.startedAt !== null && row.completedAt !== null ? row.completedAt - row.startedAt : null,
  };
}

nameSchemas({
  AgentTest,
  AgentTestUpdate,
  AgentTestCase: TestCaseInput,
  TestRunProgress: Progress,
  TestRun,
  TestResult,
  TestResultDiff: ResultDiff,
  TestRunWithResults,
  TestRunRequest: RunCreate,
  TestSuite,
  TestSuiteImportRequest: SuiteImport,
  TestSuiteImportResult: ImportResult,
  AgentTestFromCallRequest: FromCall,
});
