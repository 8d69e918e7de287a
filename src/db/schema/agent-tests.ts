import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { agents } from "./agents.ts";
import { workspaces } from "./workspaces.ts";

/** An agent's test case: a scripted or model-played caller and what the agent must do (README "Testing your agents"). */
export const agentTests = sqliteTable("agent_tests", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  /** Everything but the name: caller, channel, variables, tool mocks, expectations. */
  definition: text("definition", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [uniqueIndex("agent_tests_agent_name_unique").on(t.agentId, t.name), index("agent_tests_agent_idx").on(t.workspaceId, t.agentId, t.createdAt, t.id)]);

export const TEST_RUN_STATUSES = ["queued", "running", "passed", "failed", "canceled"] as const;
export type TestRunStatus = (typeof TEST_RUN_STATUSES)[number];

/** One run of a suite against one version of an agent; its counters move as its cases finish. */
export const agentTestRuns = sqliteTable("agent_test_runs", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
  agentVersion: integer("agent_version").notNull(),
  status: text("status", { enum: TEST_RUN_STATUSES }).notNull(),
  total: integer("total").notNull(),
  passed: integer("passed").notNull().default(0),
  failed: integer("failed").notNull().default(0),
  /** Cases that could not be run to a verdict (the call failed to start, a judge was unreachable). */
  errored: integer("errored").notNull().default(0),
  /** At most this many of the run's calls at once. */
  concurrency: integer("concurrency").notNull(),
  createdBy: text("created_by"),
  createdAt: integer("created_at").notNull(),
  startedAt: integer("started_at"),
  completedAt: integer("completed_at"),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("agent_test_runs_agent_idx").on(t.workspaceId, t.agentId, t.createdAt, t.id), index("agent_test_runs_version_idx").on(t.agentId, t.agentVersion, t.createdAt)]);

export const TEST_RESULT_STATUSES = ["queued", "running", "passed", "failed", "error", "canceled"] as const;
export type TestResultStatus = (typeof TEST_RESULT_STATUSES)[number];

/** A case in a run: the case as it was run (a copy), its call, each expectation's verdict, and what changed since the last run. */
export const agentTestResults = sqliteTable("agent_test_results", {
  id: text("id").primaryKey(),
  runId: text("run_id").notNull().references(() => agentTestRuns.id, { onDelete: "cascade" }),
  workspaceId: text("workspace_id").notNull(),
  agentId: text("agent_id").notNull(),
  /** Null for a case sent inline with the run (a suite file); `caseName` then identifies it across runs. */
  caseId: text("case_id"),
  caseName: text("case_name").notNull(),
  position: integer("position").notNull(),
  definition: text("definition", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  status: text("status", { enum: TEST_RESULT_STATUSES }).notNull(),
  callId: text("call_id"),
  checks: text("checks", { mode: "json" }).$type<unknown[]>(),
  transcript: text("transcript", { mode: "json" }).$type<unknown[]>(),
  latencies: text("latencies", { mode: "json" }).$type<unknown[]>(),
  diff: text("diff", { mode: "json" }).$type<Record<string, unknown>>(),
  error: text("error"),
  startedAt: integer("started_at"),
  completedAt: integer("completed_at"),
}, (t) => [index("agent_test_results_run_idx").on(t.runId, t.position), index("agent_test_results_case_idx").on(t.agentId, t.caseName, t.completedAt)]);
