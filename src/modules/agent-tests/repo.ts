import { and, asc, count, desc, eq, inArray, isNotNull, lt, ne, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { agentTestResults, agentTestRuns, agentTests } from "../../db/schema/index.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";
import type { ProgressCounts, ResultRow, RunRow, TestRow } from "./models.ts";

// ---- Cases

export function findTest(db: Db, workspaceId: string, agentId: string, id: string): TestRow | undefined {
  return db.select().from(agentTests).where(and(eq(agentTests.workspaceId, workspaceId), eq(agentTests.agentId, agentId), eq(agentTests.id, id))).get();
}

export function findTestByName(db: Db, agentId: string, name: string): TestRow | undefined {
  return db.select().from(agentTests).where(and(eq(agentTests.agentId, agentId), eq(agentTests.name, name))).get();
}

export function listTests(db: Db, workspaceId: string, agentId: string, page: PageRequest): TestRow[] {
  return db
    .select()
    .from(agentTests)
    .where(and(eq(agentTests.workspaceId, workspaceId), eq(agentTests.agentId, agentId), afterCursor(agentTests.createdAt, agentTests.id, page.after)))
    .orderBy(desc(agentTests.createdAt), desc(agentTests.id))
    .limit(page.limit + 1)
    .all();
}

/** Every case of the agent, oldest first (a suite's order), up to `limit`. */
export function allTests(db: Db, workspaceId: string, agentId: string, limit: number): TestRow[] {
  return db.select().from(agentTests).where(and(eq(agentTests.workspaceId, workspaceId), eq(agentTests.agentId, agentId))).orderBy(asc(agentTests.createdAt), asc(agentTests.id)).limit(limit).all();
}

export function testsByIds(db: Db, workspaceId: string, agentId: string, ids: string[]): TestRow[] {
  return db.select().from(agentTests).where(and(eq(agentTests.workspaceId, workspaceId), eq(agentTests.agentId, agentId), inArray(agentTests.id, ids))).all();
}

export function insertTest(db: Db, row: TestRow): void {
  db.insert(agentTests).values(row).run();
}

export function updateTest(db: Db, id: string, changes: Pick<TestRow, "name" | "definition" | "updatedAt">): void {
  db.update(agentTests).set(changes).where(eq(agentTests.id, id)).run();
}

export function deleteTest(db: Db, id: string): void {
  db.delete(agentTests).where(eq(agentTests.id, id)).run();
}

// ---- Runs

export function findRun(db: Db, workspaceId: string, agentId: string, id: string): RunRow | undefined {
  return db.select().from(agentTestRuns).where(and(eq(agentTestRuns.workspaceId, workspaceId), eq(agentTestRuns.agentId, agentId), eq(agentTestRuns.id, id))).get();
}

export function runById(db: Db, id: string): RunRow | undefined {
  return db.select().from(agentTestRuns).where(eq(agentTestRuns.id, id)).get();
}

export function listRuns(db: Db, workspaceId: string, agentId: string, page: PageRequest): RunRow[] {
  return db
    .select()
    .from(agentTestRuns)
    .where(and(eq(agentTestRuns.workspaceId, workspaceId), eq(agentTestRuns.agentId, agentId), afterCursor(agentTestRuns.createdAt, agentTestRuns.id, page.after)))
    .orderBy(desc(agentTestRuns.createdAt), desc(agentTestRuns.id))
    .limit(page.limit + 1)
    .all();
}

/** The latest run against a version that reached a verdict (passed or failed; canceled ones say nothing). */
export function latestCompletedRun(db: Db, workspaceId: string, agentId: string, version: number): RunRow | undefined {
  return db
    .select()
    .from(agentTestRuns)
    .where(and(eq(agentTestRuns.workspaceId, workspaceId), eq(agentTestRuns.agentId, agentId), eq(agentTestRuns.agentVersion, version), inArray(agentTestRuns.status, ["passed", "failed"])))
    .orderBy(desc(agentTestRuns.completedAt), desc(agentTestRuns.createdAt))
    .limit(1)
    .get();
}

export function insertRun(db: Db, row: RunRow): void {
  db.insert(agentTestRuns).values(row).run();
}

/** Moves a run on from one of `from`; false when it was no longer there (canceled meanwhile). */
export function setRunStatus(db: Db, id: string, from: RunRow["status"][], changes: Partial<RunRow>): boolean {
  return db.update(agentTestRuns).set(changes).where(and(eq(agentTestRuns.id, id), inArray(agentTestRuns.status, from))).run().changes > 0;
}

/** One case's verdict counted on its run, in the transaction that writes the result. */
export function countVerdict(db: Db, id: string, status: "passed" | "failed" | "error", now: number): void {
  const column = status === "passed" ? agentTestRuns.passed : status === "failed" ? agentTestRuns.failed : agentTestRuns.errored;
  const key = status === "passed" ? "passed" : status === "failed" ? "failed" : "errored";
  db.update(agentTestRuns).set({ [key]: sql`${column} + 1`, updatedAt: now }).where(eq(agentTestRuns.id, id)).run();
}

export function countErrors(db: Db, id: string, errors: number, now: number): void {
  if (errors) db.update(agentTestRuns).set({ errored: sql`${agentTestRuns.errored} + ${errors}`, updatedAt: now }).where(eq(agentTestRuns.id, id)).run();
}

// ---- Results

const RESULTS_INSERT_BATCH = 200;

export function insertResults(db: Db, rows: ResultRow[]): void {
  for (let i = 0; i < rows.length; i += RESULTS_INSERT_BATCH) db.insert(agentTestResults).values(rows.slice(i, i + RESULTS_INSERT_BATCH)).run();
}

export function resultsOf(db: Db, runId: string): ResultRow[] {
  return db.select().from(agentTestResults).where(eq(agentTestResults.runId, runId)).orderBy(asc(agentTestResults.position)).all();
}

/** Queued and running cases per run (the rest of the progress is counted on the run row), for a page of runs in one read. */
export function progressCounts(db: Db, runIds: string[]): Map<string, ProgressCounts> {
  const counts = new Map(runIds.map((id) => [id, { queued: 0, running: 0, canceled: 0 }]));
  if (!runIds.length) return counts;
  const rows = db
    .select({ runId: agentTestResults.runId, status: agentTestResults.status, n: count() })
    .from(agentTestResults)
    .where(and(inArray(agentTestResults.runId, runIds), inArray(agentTestResults.status, ["queued", "running", "canceled"])))
    .groupBy(agentTestResults.runId, agentTestResults.status)
    .all();
  for (const row of rows) counts.get(row.runId)![row.status as keyof ProgressCounts] = row.n;
  return counts;
}

/** The next queued case of a run, taken (running) at once; undefined when none is left. */
export function claimNextResult(db: Db, runId: string, now: number): ResultRow | undefined {
  const next = db.select().from(agentTestResults).where(and(eq(agentTestResults.runId, runId), eq(agentTestResults.status, "queued"))).orderBy(asc(agentTestResults.position)).limit(1).get();
  if (!next) return undefined;
  const taken = db.update(agentTestResults).set({ status: "running", startedAt: now }).where(and(eq(agentTestResults.id, next.id), eq(agentTestResults.status, "queued"))).run().changes > 0;
  return taken ? { ...next, status: "running", startedAt: now } : claimNextResult(db, runId, now);
}

/** Cases a previous attempt left running (its node was lost or stopped): queued again, their calls ended with that node. */
export function requeueRunning(db: Db, runId: string): number {
  return db.update(agentTestResults).set({ status: "queued", startedAt: null, callId: null }).where(and(eq(agentTestResults.runId, runId), eq(agentTestResults.status, "running"))).run().changes;
}

export function finishResult(db: Db, id: string, changes: Partial<ResultRow>): boolean {
  return db.update(agentTestResults).set(changes).where(and(eq(agentTestResults.id, id), eq(agentTestResults.status, "running"))).run().changes > 0;
}

export function setResultCall(db: Db, id: string, callId: string): void {
  db.update(agentTestResults).set({ callId }).where(eq(agentTestResults.id, id)).run();
}

/** The cases of a run given up: each still queued or running becomes an error saying why. */
export function errorUnfinished(db: Db, runId: string, error: string, now: number): number {
  return db.update(agentTestResults).set({ status: "error", error, completedAt: now }).where(and(eq(agentTestResults.runId, runId), inArray(agentTestResults.status, ["queued", "running"]))).run().changes;
}

/** A canceled run's cases that had not started. */
export function cancelQueuedResults(db: Db, runId: string, now: number): number {
  return db.update(agentTestResults).set({ status: "canceled", completedAt: now }).where(and(eq(agentTestResults.runId, runId), eq(agentTestResults.status, "queued"))).run().changes;
}

/** The latest earlier result of the same case (same agent, same name) that reached a verdict: what a diff compares against. */
export function previousResult(db: Db, agentId: string, caseName: string, runId: string, before: number): ResultRow | undefined {
  return db
    .select()
    .from(agentTestResults)
    .where(
      and(
        eq(agentTestResults.agentId, agentId),
        eq(agentTestResults.caseName, caseName),
        ne(agentTestResults.runId, runId),
        isNotNull(agentTestResults.completedAt),
        lt(agentTestResults.completedAt, before + 1),
        inArray(agentTestResults.status, ["passed", "failed", "error"]),
      ),
    )
    .orderBy(desc(agentTestResults.completedAt))
    .limit(1)
    .get();
}
