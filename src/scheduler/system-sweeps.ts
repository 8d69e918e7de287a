import { Cron } from "croner";
import { and, isNotNull, lt, or } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { idempotencyKeys, passwordResets, rateCounters, sessions } from "../db/schema/index.ts";
import { DAY, MINUTE } from "../lib/time.ts";
import { pruneFinishedJobs, rescueExpiredLeases } from "../jobs/leases.ts";
import { failureLevel } from "../db/refusals.ts";
import { countRefusal } from "../core/refusal-count.ts";
import { claimSweepRun } from "../cluster/sweep-claims.ts";

/** How long ended sessions stay listed for forensics before they are deleted. */
const ENDED_SESSION_RETENTION_MS = 30 * DAY;
/** Completed jobs are only bookkeeping; failed ones are kept longer for diagnosis. */
const COMPLETED_JOB_RETENTION_MS = DAY;
const FAILED_JOB_RETENTION_MS = 30 * DAY;

export interface Sweeps {
  stop(): void;
}

/** A feature's own housekeeping, handed in by the composition root. */
export interface Sweep {
  name: string;
  /** croner pattern (seconds first when six fields); none: only at start. */
  pattern?: string;
  /** Sync or async: a throw and a rejection are both logged, and the next run goes ahead. */
  run(): unknown;
  /** Run once at start, before the first tick (on the node starting: each such run is a catch-up, idempotent). */
  atStart?: boolean;
  /**
   * Cluster-wide work (money, retention, expiry): each firing runs on one node, the one that claims it in
   * sweep_runs. Without it the sweep runs on every node (its own calls, its own write-behind).
   */
  once?: boolean;
}

/** Periodic housekeeping: expired bookkeeping rows out, the WAL folded back into the database, plus the features' sweeps. */
export function startSystemSweeps(ctx: AppContext, features: Sweep[] = []): Sweeps {
  const failed = (name: string) => (error: unknown) => {
    countRefusal(ctx.metrics, "sweeps", error);
    ctx.logger[failureLevel(error)]("system sweep failed", { sweep: name, error });
  };
  const runs = ctx.metrics.counter("parley_sweep_runs_total", "Periodic sweeps this node ran, by sweep (a cluster-wide sweep's firing runs on one node).", ["sweep"]);
  const run = (name: string, work: () => unknown) => () => {
    try {
      runs.labels(name).inc();
      const result = work();
      if (result instanceof Promise) result.catch(failed(name));
    } catch (error) {
      failed(name)(error);
    }
  };
  const options = { protect: true, unref: true };
  run("rescue", () => rescueLeases(ctx))(); // a crashed predecessor's jobs need not wait for the first tick
  // On SQLite (one process per data dir) the claim always wins; it still records when each sweep last ran.
  const claimed = (name: string, fire: () => void) => (cron: Cron) => {
    try {
      if (!claimSweepRun(ctx, name, firedAt(cron))) return;
    } catch (error) {
      return failed(name)(error);
    }
    fire();
  };
  for (const sweep of features) {
    if (!sweep.atStart) continue;
    // The catch-up run covers the last firing: claimed if no node ran it yet (a late timer for it then skips it), run regardless.
    if (sweep.once && sweep.pattern) claimed(sweep.name, () => {})(new Cron(sweep.pattern, { paused: true }));
    run(sweep.name, sweep.run)();
  }
  const crons = [
    new Cron(`*/${rescueIntervalSeconds(ctx)} * * * * *`, options, run("rescue", () => rescueLeases(ctx))),
    new Cron("17 * * * *", options, claimed("prune", run("prune", () => pruneExpiredRows(ctx)))),
    new Cron("*/5 * * * *", options, run("checkpoint", () => checkpoint(ctx))),
    ...features.flatMap((sweep) => (sweep.pattern ? [new Cron(sweep.pattern, options, sweep.once ? claimed(sweep.name, run(sweep.name, sweep.run)) : run(sweep.name, sweep.run))] : [])),
  ];
  return { stop: () => crons.forEach((cron) => cron.stop()) };
}

/** The instant this firing was scheduled for (the same on every node), not when its timer ran. */
function firedAt(cron: Cron): number {
  return cron.previousRuns(1, new Date(Date.now() + 1))[0]?.getTime() ?? Date.now();
}

/** Look for expired leases twice per lease length (1–15 s), so a crashed worker's jobs wait about one lease. */
function rescueIntervalSeconds(ctx: AppContext): number {
  return Math.min(15, Math.max(1, Math.floor(ctx.config.jobLeaseSeconds / 2)));
}

/** The lifeline: jobs whose worker died (lease expired) go back to the queue. */
export function rescueLeases(ctx: AppContext): number {
  const rescued = rescueExpiredLeases(ctx.db, ctx.clock.now());
  if (rescued) {
    ctx.logger.warn("rescued jobs whose lease expired", { jobs: rescued });
    ctx.jobs.wake();
  }
  return rescued;
}

export function pruneExpiredRows(ctx: AppContext): { idempotencyKeys: number; passwordResets: number; sessions: number; jobs: number; rateCounters: number } {
  const now = ctx.clock.now();
  const cutoff = now - ENDED_SESSION_RETENTION_MS;
  return {
    jobs: pruneFinishedJobs(ctx.db, now - COMPLETED_JOB_RETENTION_MS, now - FAILED_JOB_RETENTION_MS),
    idempotencyKeys: ctx.db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now)).run().changes,
    passwordResets: ctx.db.delete(passwordResets).where(lt(passwordResets.expiresAt, now)).run().changes,
    sessions: ctx.db
      .delete(sessions)
      .where(or(lt(sessions.expiresAt, cutoff), and(isNotNull(sessions.revokedAt), lt(sessions.revokedAt, cutoff))))
      .run().changes,
    // A cluster's rate windows (PostgreSQL): the current minute is counted, the one before may still be answering.
    rateCounters: ctx.db.delete(rateCounters).where(lt(rateCounters.windowStart, now - 2 * MINUTE)).run().changes,
  };
}

/** TRUNCATE keeps the -wal file from growing without bound under steady writes; optimize refreshes stats. */
export function checkpoint(ctx: AppContext): void {
  ctx.writeBehind.flush();
  if (ctx.dialect !== "sqlite") return; // PostgreSQL's autovacuum analyzes, and its server checkpoints
  ctx.sqlite.pragma("optimize"); // may write statistics: before the checkpoint, so they are folded in too
  ctx.sqlite.pragma("wal_checkpoint(TRUNCATE)");
}
