import { and, eq, inArray, sql } from "drizzle-orm";
import type { Clock } from "../core/clock.ts";
import type { Db } from "../db/connection.ts";
import { prepared } from "../db/prepared.ts";
import { jobs } from "../db/schema/index.ts";
import { newTimeOrderedId } from "../lib/ids.ts";

export type JobRow = typeof jobs.$inferSelect;

export const ACTIVE_STATES = ["available", "scheduled", "executing", "retryable"] as const;

export interface EnqueueOptions {
  type: string;
  payload: Record<string, unknown>;
  /** Epoch ms; default now. */
  runAt?: number;
  maxAttempts?: number;
  /** At most one active job per key: a second enqueue returns the first job. */
  uniqueKey?: string;
  workspaceId?: string | null;
}

/** Anything that can wake the runner after an enqueue (the runner itself; tests may pass none). */
export interface Waker {
  wake(type?: string): void;
}

const COLUMNS = ["id", "type", "payload", "state", "runAt", "maxAttempts", "uniqueKey", "workspaceId", "createdAt", "updatedAt"] as const;

const insertJob = prepared((db) =>
  db
    .insert(jobs)
    .values(Object.fromEntries(COLUMNS.map((column) => [column, sql.placeholder(column)])) as unknown as typeof jobs.$inferInsert)
    .onConflictDoNothing()
    .prepare(),
);

const activeByKey = prepared((db) =>
  db
    .select({ id: jobs.id })
    .from(jobs)
    .where(and(eq(jobs.uniqueKey, sql.placeholder("key")), inArray(jobs.state, [...ACTIVE_STATES])))
    .prepare(),
);

/**
 * Inserts a job. Synchronous, so it can share a transaction with the change that causes it:
 * if that transaction rolls back, the job never existed.
 */
export function enqueueJob(deps: { db: Db; clock: Clock; jobs?: Waker }, options: EnqueueOptions): { id: string; inserted: boolean } {
  const now = deps.clock.now();
  const runAt = options.runAt ?? now;
  const id = newTimeOrderedId("job", now); // appended at the end of the primary-key index
  const inserted =
    insertJob(deps.db).run({
      id,
      type: options.type,
      payload: options.payload,
      state: runAt > now ? "scheduled" : "available",
      runAt,
      maxAttempts: options.maxAttempts ?? 20,
      uniqueKey: options.uniqueKey ?? null,
      workspaceId: options.workspaceId ?? null,
      createdAt: now,
      updatedAt: now,
    }).changes === 1;
  if (inserted) {
    deps.jobs?.wake(options.type);
    return { id, inserted };
  }
  const existing = activeByKey(deps.db).get({ key: options.uniqueKey });
  return { id: existing!.id, inserted: false };
}

/**
 * Makes sure a job with this key runs by `runAt`: enqueues it, or moves a waiting one earlier (a
 * dispatcher snoozing until its next timer, woken because a call ended). A job already executing
 * is left alone; its handler sees the change when it next looks.
 */
export function enqueueOrAdvance(deps: { db: Db; clock: Clock; jobs?: Waker }, options: EnqueueOptions & { uniqueKey: string }): void {
  const runAt = options.runAt ?? deps.clock.now();
  const { inserted } = enqueueJob(deps, { ...options, runAt });
  if (inserted) return;
  const moved = deps.db
    .update(jobs)
    .set({ runAt, state: runAt > deps.clock.now() ? "scheduled" : "available", updatedAt: deps.clock.now() })
    .where(and(eq(jobs.uniqueKey, options.uniqueKey), inArray(jobs.state, ["available", "scheduled", "retryable"]), sql`${jobs.runAt} > ${runAt}`))
    .run().changes;
  if (moved) deps.jobs?.wake(options.type);
}
