import { and, asc, eq, inArray, lt, lte, sql } from "drizzle-orm";
import { dialectOf, type Db } from "../db/connection.ts";
import { prepared } from "../db/prepared.ts";
import { CLAIMABLE_SQL, jobs, type JobErrorEntry } from "../db/schema/index.ts";
import type { JobRow } from "./queue.ts";

const p = <T extends string>(name: T) => sql.placeholder(name);
/** A placeholder where drizzle's column types want a value. */
const value = <T>(name: string) => sql.placeholder(name) as unknown as T;

// Every statement here runs per job: prepared once per database (see db/prepared.ts).
const claimStatement = prepared((db) => {
  const due = db
    .select({ id: jobs.id })
    .from(jobs)
    // Walks jobs_due_idx in due order and stops at the limit: cheap however deep the queue is.
    .where(and(eq(jobs.type, p("type")), CLAIMABLE_SQL, lte(jobs.runAt, p("now"))))
    .orderBy(asc(jobs.runAt), asc(jobs.id))
    .limit(p("limit"));
  return db
    .update(jobs)
    .set({ state: "executing", attempt: sql`${jobs.attempt} + 1`, lockedBy: value<string>("holder"), lockedUntil: value<number>("until"), updatedAt: value<number>("now") })
    .where(inArray(jobs.id, dialectOf(db) === "postgres" ? sql`(${due.getSQL()} FOR UPDATE SKIP LOCKED)` : due))
    .returning()
    .prepare();
});

/**
 * Claims up to `limit` due jobs of one type in a single UPDATE … RETURNING: the lease (holder and
 * expiry) is set in the same statement that picks the rows, so two workers can never both win one.
 * SQLite runs one writer at a time. PostgreSQL runs claimers side by side at READ COMMITTED, where the
 * picking read would not see another claim that has not committed yet, and both would take the job:
 * there the read locks the rows it picks and passes over rows another claimer has locked.
 */
export function claimJobs(db: Db, type: string, limit: number, holder: string, now: number, leaseMs: number): JobRow[] {
  if (limit <= 0) return [];
  // An UPDATE takes the write lock even when it matches nothing, and waits (sleeping the event loop)
  // while another connection commits; a read first keeps polls for types with nothing due lock-free.
  const due = nextDueStatement(db).get({ type })?.at;
  if (due === undefined || due > now) return [];
  return claimStatement(db).all({ type, limit, holder, now, until: now + leaseMs }).sort(dueOrder); // RETURNING promises no order
}

function dueOrder(a: JobRow, b: JobRow): number {
  return a.runAt - b.runAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/** Every write below only lands while `holder` still owns the lease: a stale worker changes nothing. */
const held = and(eq(jobs.id, p("id")), eq(jobs.state, "executing"), eq(jobs.lockedBy, p("holder")));

const completeStatement = prepared((db) =>
  db.update(jobs).set({ state: "completed", lockedBy: null, lockedUntil: null, finishedAt: value<number>("now"), updatedAt: value<number>("now") }).where(held).prepare(),
);

export function completeJob(db: Db, id: string, holder: string, now: number): boolean {
  return completeStatement(db).run({ id, holder, now }).changes === 1;
}

const renewStatement = prepared((db) => db.update(jobs).set({ lockedUntil: value<number>("until") }).where(held).prepare());

export function renewLease(db: Db, id: string, holder: string, until: number): boolean {
  return renewStatement(db).run({ id, holder, until }).changes === 1;
}

export interface FailureOutcome {
  /** Retry at this time, or give up (discard) when null. */
  retryAt: number | null;
  error: string;
}

// The entry is bound as text: PostgreSQL would otherwise type the parameter jsonb and take the string as one JSON string.
const appendError = sql`json_insert(${jobs.errors}, '$[#]', json(cast(${p("entry")} as text)))`;

const retryStatement = prepared((db) =>
  db
    .update(jobs)
    .set({ state: "retryable", runAt: value<number>("retryAt"), lockedBy: null, lockedUntil: null, updatedAt: value<number>("now"), errors: appendError })
    .where(held)
    .prepare(),
);

const discardStatement = prepared((db) =>
  db
    .update(jobs)
    .set({ state: "discarded", finishedAt: value<number>("now"), lockedBy: null, lockedUntil: null, updatedAt: value<number>("now"), errors: appendError })
    .where(held)
    .prepare(),
);

export function failJob(db: Db, job: JobRow, holder: string, now: number, outcome: FailureOutcome): boolean {
  const entry = JSON.stringify({ attempt: job.attempt, at: now, error: outcome.error.slice(0, 2000) } satisfies JobErrorEntry);
  const statement = outcome.retryAt === null ? discardStatement(db) : retryStatement(db);
  return statement.run({ id: job.id, holder, now, entry, retryAt: outcome.retryAt }).changes === 1;
}

const snoozeStatement = prepared((db) =>
  db
    .update(jobs)
    .set({ state: "scheduled", runAt: value<number>("runAt"), attempt: sql`${jobs.attempt} - 1`, lockedBy: null, lockedUntil: null, updatedAt: value<number>("now") })
    .where(held)
    .prepare(),
);

/** Postpones without spending the attempt the claim took. */
export function snoozeJob(db: Db, id: string, holder: string, now: number, runAt: number): boolean {
  return snoozeStatement(db).run({ id, holder, now, runAt }).changes === 1;
}

/** Hands an unfinished job back (shutdown): it runs again, and the interrupted try does not count. */
export function releaseJob(db: Db, id: string, holder: string, now: number): boolean {
  return snoozeJob(db, id, holder, now, now);
}

/** A lease given up by force: the job runs again (retryable), or is discarded when that was its last attempt. */
function leaseTakenBack(now: number, reason: string) {
  const entry = JSON.stringify({ at: now, error: reason });
  return {
    state: sql`CASE WHEN ${jobs.attempt} >= ${jobs.maxAttempts} THEN 'discarded' ELSE 'retryable' END`,
    finishedAt: sql`CASE WHEN ${jobs.attempt} >= ${jobs.maxAttempts} THEN ${now} ELSE NULL END`,
    runAt: now,
    lockedBy: null,
    lockedUntil: null,
    updatedAt: now,
    errors: sql`json_insert(${jobs.errors}, '$[#]', json_set(json(cast(${entry} as text)), '$.attempt', ${jobs.attempt}))`,
  };
}

/**
 * The lifeline: jobs whose lease ran out (their worker crashed or hung) become retryable again,
 * or are discarded when that was their last attempt.
 */
export function rescueExpiredLeases(db: Db, now: number): number {
  return db
    .update(jobs)
    .set(leaseTakenBack(now, "lease expired: the worker stopped before finishing"))
    .where(and(sql.raw(`state = 'executing'`), lt(jobs.lockedUntil, now))) // literal: matches jobs_leases_idx
    .run().changes;
}

/**
 * A lost node's jobs, at once rather than when their leases run out: each attempt counts as
 * rescueExpiredLeases counts it, and the lost node's own late writes find the lease gone.
 */
export function releaseLeasesOf(db: Db, holder: string, now: number): number {
  return db
    .update(jobs)
    .set(leaseTakenBack(now, "its node was lost"))
    .where(and(sql.raw(`state = 'executing'`), eq(jobs.lockedBy, holder)))
    .run().changes;
}

/** Finished jobs older than their retention go; active ones are never touched. */
export function pruneFinishedJobs(db: Db, completedBefore: number, failedBefore: number): number {
  const completed = db.delete(jobs).where(and(eq(jobs.state, "completed"), lt(jobs.finishedAt, completedBefore))).run().changes;
  const failed = db.delete(jobs).where(and(inArray(jobs.state, ["discarded", "cancelled"]), lt(jobs.finishedAt, failedBefore))).run().changes;
  return completed + failed;
}

// Per type, so each is a seek to the first entry of jobs_due_idx (an IN list makes SQLite scan them all).
const nextDueStatement = prepared((db) =>
  db
    .select({ at: jobs.runAt })
    .from(jobs)
    .where(and(eq(jobs.type, p("type")), CLAIMABLE_SQL))
    .orderBy(asc(jobs.runAt))
    .limit(1)
    .prepare(),
);

/** Earliest run time among jobs of these types that could be claimed (for the runner's next wake-up). */
export function nextDueAt(db: Db, types: string[]): number | null {
  let next: number | null = null;
  for (const type of types) {
    const at = nextDueStatement(db).get({ type })?.at;
    if (at !== undefined && (next === null || at < next)) next = at;
  }
  return next;
}
