import { Cron } from "croner";
import { and, isNotNull, lt, or } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { passwordResets, sessions } from "../db/schema/index.ts";
import { pruneIdempotencyKeys } from "../http/idempotency.ts";
import { DAY } from "../lib/time.ts";

/** How long ended sessions stay listed for forensics before they are deleted. */
const ENDED_SESSION_RETENTION_MS = 30 * DAY;

export interface Sweeps {
  stop(): void;
}

/** Periodic housekeeping: expired bookkeeping rows out, the WAL folded back into the database. */
export function startSystemSweeps(ctx: AppContext): Sweeps {
  const run = (name: string, work: () => void) => () => {
    try {
      work();
    } catch (error) {
      ctx.logger.error("system sweep failed", { sweep: name, error });
    }
  };
  const options = { protect: true, unref: true };
  const crons = [
    new Cron("17 * * * *", options, run("prune", () => pruneExpiredRows(ctx))),
    new Cron("*/5 * * * *", options, run("checkpoint", () => checkpoint(ctx))),
  ];
  return { stop: () => crons.forEach((cron) => cron.stop()) };
}

export function pruneExpiredRows(ctx: AppContext): { idempotencyKeys: number; passwordResets: number; sessions: number } {
  const now = ctx.clock.now();
  const cutoff = now - ENDED_SESSION_RETENTION_MS;
  return {
    idempotencyKeys: pruneIdempotencyKeys(ctx),
    passwordResets: ctx.db.delete(passwordResets).where(lt(passwordResets.expiresAt, now)).run().changes,
    sessions: ctx.db
      .delete(sessions)
      .where(or(lt(sessions.expiresAt, cutoff), and(isNotNull(sessions.revokedAt), lt(sessions.revokedAt, cutoff))))
      .run().changes,
  };
}

/** TRUNCATE keeps the -wal file from growing without bound under steady writes; optimize refreshes stats. */
export function checkpoint(ctx: AppContext): void {
  ctx.writeBehind.flush();
  ctx.sqlite.pragma("optimize"); // may write statistics: before the checkpoint, so they are folded in too
  ctx.sqlite.pragma("wal_checkpoint(TRUNCATE)");
}
