import type { Static } from "elysia";
import type { AppContext } from "../../core/context.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import { newId } from "../../lib/ids.ts";
import { toIso } from "../../lib/time.ts";
import { publishWorkspaceEvent } from "../../webhooks/outbox.ts";
import type { TestCaseDefinition } from "./definition.ts";
import { DEFAULT_CONCURRENCY, definitionOf, filledDefinition, MAX_RUN_CASES, resultJson, runJson, type ResultRow, type RunCreate, type RunRow } from "./models.ts";
import { agentTestsPorts } from "./ports.ts";
import * as repo from "./repo.ts";
import { checkCases, contextOf } from "./service.ts";

export const RUN_JOB = "agent_tests.run";
/** A run whose node was lost is picked up again (its unfinished cases queued again) this many times. */
export const RUN_ATTEMPTS = 5;

/** Runs in progress on this node: aborting one hangs up its live calls (a cancel). */
const liveRuns = new WeakMap<AppContext, Map<string, AbortController>>();

export function liveRunsOf(ctx: AppContext): Map<string, AbortController> {
  let map = liveRuns.get(ctx);
  if (!map) liveRuns.set(ctx, (map = new Map()));
  return map;
}

interface PlannedCase {
  caseId: string | null;
  definition: TestCaseDefinition;
}

/** The cases a run request names: inline ones (checked whole), stored ones by id, or all of the agent's. */
function plannedCases(ctx: AppContext, workspaceId: string, agentId: string, version: number, body: Static<typeof RunCreate>): PlannedCase[] {
  if (body.cases && body.test_ids) throw invalid("cases", "send test_ids (stored cases) or cases (inline), not both");
  if (body.cases) {
    const config = agentTestsPorts(ctx).agentConfigAt(workspaceId, agentId, version)!;
    checkCases(body.cases, contextOf(ctx, workspaceId, config), "cases");
    return body.cases.map((definition) => ({ caseId: null, definition: filledDefinition(definition) }));
  }
  if (body.test_ids) {
    const ids = [...new Set(body.test_ids)];
    const rows = new Map(repo.testsByIds(ctx.db, workspaceId, agentId, ids).map((row) => [row.id, row]));
    const missing = body.test_ids.findIndex((id) => !rows.has(id));
    if (missing >= 0) throw invalid(`test_ids[${missing}]`, `the agent has no test case ${body.test_ids[missing]}`);
    return ids.map((id) => ({ caseId: id, definition: definitionOf(rows.get(id)!) }));
  }
  const rows = repo.allTests(ctx.db, workspaceId, agentId, MAX_RUN_CASES + 1);
  if (!rows.length) throw invalid("test_ids", "the agent has no test cases: create some (POST /v1/agents/{id}/tests) or send cases inline");
  if (rows.length > MAX_RUN_CASES) throw invalid("test_ids", `the agent has more than ${MAX_RUN_CASES} test cases and a run takes at most ${MAX_RUN_CASES}: name the ones to run in test_ids (several runs for more)`);
  return rows.map((row) => ({ caseId: row.id, definition: definitionOf(row) }));
}

/**
 * Records a run with every case queued and the job that runs them, in one transaction: a suite of
 * 1,000 cases is accepted at once and works through them `concurrency` at a time.
 */
export function createRun(ctx: AppContext, workspaceId: string, agentId: string, body: Static<typeof RunCreate>, actor: string | null): RunRow {
  const ports = agentTestsPorts(ctx);
  const agent = ports.getAgent(workspaceId, agentId);
  const version = body.version ?? agent.version;
  if (!ports.versionExists(workspaceId, agentId, version)) throw invalid("version", `the agent has no version ${version}`);
  const cases = plannedCases(ctx, workspaceId, agentId, version, body);
  const now = ctx.clock.now();
  const run: RunRow = {
    id: newId("trun"),
    workspaceId,
    agentId,
    agentVersion: version,
    status: "queued",
    total: cases.length,
    passed: 0,
    failed: 0,
    errored: 0,
    concurrency: body.concurrency ?? DEFAULT_CONCURRENCY,
    createdBy: actor,
    createdAt: now,
    startedAt: null,
    completedAt: null,
    updatedAt: now,
  };
  const results: ResultRow[] = cases.map((planned, position) => ({
    id: newId("tres"),
    runId: run.id,
    workspaceId,
    agentId,
    caseId: planned.caseId,
    caseName: planned.definition.name,
    position,
    definition: planned.definition as unknown as Record<string, unknown>,
    status: "queued",
    callId: null,
    checks: null,
    transcript: null,
    latencies: null,
    diff: null,
    error: null,
    startedAt: null,
    completedAt: null,
  }));
  ctx.sqlite.transaction(() => {
    repo.insertRun(ctx.db, run);
    repo.insertResults(ctx.db, results);
    enqueueJob(ctx, { type: RUN_JOB, payload: { run_id: run.id }, uniqueKey: `${RUN_JOB}:${run.id}`, workspaceId, maxAttempts: RUN_ATTEMPTS });
  })();
  return run;
}

export function getRun(ctx: AppContext, workspaceId: string, agentId: string, runId: string): RunRow {
  agentTestsPorts(ctx).getAgent(workspaceId, agentId);
  const run = repo.findRun(ctx.db, workspaceId, agentId, runId);
  if (!run) throw notFound("test run");
  return run;
}

export function runWithResults(ctx: AppContext, run: RunRow) {
  return { ...runJson(run, repo.progressCounts(ctx.db, [run.id]).get(run.id)!), results: repo.resultsOf(ctx.db, run.id).map(resultJson) };
}

/** `test_run.completed`, in the transaction that writes the run's final status. */
function publishCompleted(ctx: AppContext, run: RunRow, canceled: number): void {
  publishWorkspaceEvent(ctx, {
    workspaceId: run.workspaceId,
    type: "test_run.completed",
    data: {
      run_id: run.id,
      agent_id: run.agentId,
      agent_version: run.agentVersion,
      status: run.status,
      total: run.total,
      passed: run.passed,
      failed: run.failed,
      errored: run.errored,
      canceled,
      started_at: toIso(run.startedAt),
      completed_at: toIso(run.completedAt ?? ctx.clock.now()),
      duration_ms: run.startedAt !== null && run.completedAt !== null ? run.completedAt - run.startedAt : null,
    },
  });
}

/**
 * Every case has its verdict: the run passed when each passed, else failed; its event goes out in the
 * same transaction. `complete` completes the job there too. False when the run had ended already (canceled).
 */
export function finishRun(ctx: AppContext, runId: string, complete: () => void): boolean {
  return ctx.sqlite.transaction(() => {
    const run = repo.runById(ctx.db, runId);
    if (!run || (run.status !== "running" && run.status !== "queued")) return false;
    const now = ctx.clock.now();
    const status = run.failed + run.errored > 0 ? "failed" : "passed";
    if (!repo.setRunStatus(ctx.db, runId, ["running", "queued"], { status, completedAt: now, startedAt: run.startedAt ?? now, updatedAt: now })) return false;
    publishCompleted(ctx, repo.runById(ctx.db, runId)!, repo.progressCounts(ctx.db, [runId]).get(runId)!.canceled);
    complete();
    return true;
  })();
}

/** The run's last attempt failed: its unfinished cases become errors saying why, and the run ends (failed). */
export function abandonRun(ctx: AppContext, runId: string, error: string, complete: () => void): void {
  ctx.sqlite.transaction(() => {
    const now = ctx.clock.now();
    repo.countErrors(ctx.db, runId, repo.errorUnfinished(ctx.db, runId, error, now), now);
    finishRun(ctx, runId, complete);
  })();
}

/** Cancels a run: cases not started are canceled, live calls hung up (on this node at once, elsewhere at the runner's next look). */
export function cancelRun(ctx: AppContext, workspaceId: string, agentId: string, runId: string): RunRow {
  const run = getRun(ctx, workspaceId, agentId, runId);
  ctx.sqlite.transaction(() => {
    const now = ctx.clock.now();
    if (!repo.setRunStatus(ctx.db, runId, ["queued", "running"], { status: "canceled", completedAt: now, updatedAt: now })) {
      throw new ApiError("invalid_state", `the run is ${repo.runById(ctx.db, runId)?.status ?? run.status} already`);
    }
    repo.cancelQueuedResults(ctx.db, runId, now);
    publishCompleted(ctx, repo.runById(ctx.db, runId)!, repo.progressCounts(ctx.db, [runId]).get(runId)!.canceled);
  })();
  liveRunsOf(ctx).get(runId)?.abort();
  return repo.runById(ctx.db, runId)!;
}

/** The publish gate's question: the latest completed run against a version. */
export function latestRunOf(ctx: AppContext, workspaceId: string, agentId: string, version: number) {
  const run = repo.latestCompletedRun(ctx.db, workspaceId, agentId, version);
  return run ? { id: run.id, status: run.status, failed: run.failed, errored: run.errored } : null;
}
