import { and, eq, inArray } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { scheduleRuns, schedules } from "../../db/schema/index.ts";
import { ApiError } from "../../http/errors.ts";
import type { RunningJob } from "../../jobs/runner.ts";
import { MINUTE, toIso } from "../../lib/time.ts";
import type { CarrierReach } from "../../telephony/reach.ts";
import type { ScheduleRow } from "./models.ts";
import { cronOf, enqueueRun, nextCronRun, WAITING_STATUSES } from "./service.ts";

/**
 * Queues a call (the calls feature's createOutboundCall, handed over by the composition root);
 * throws ApiError when the agent cannot call.
 */
export type PlaceScheduledCall = (
  workspaceId: string,
  input: { agent_id: string; to: string; from?: string; variables: Record<string, unknown>; metadata: Record<string, unknown> },
  extra: { reach: CarrierReach },
) => { id: string };

/** Occurrences of a recurring schedule recorded one by one as missed after a long outage, at most. */
const MAX_MISSED_RECORDED = 100;

/**
 * The `schedules.run` job for one run time. Exactly one job exists per schedule and run time (its
 * unique key), and the run is recorded under a unique (schedule, time) row in the same transaction
 * as the call it places, so a run never places two calls. A run found more than the grace period
 * late (the server was down) is recorded as missed instead of calling someone at the wrong time.
 */
export async function runSchedule(ctx: AppContext, placeCall: PlaceScheduledCall, job: RunningJob<{ schedule_id: string; run_at: number }>): Promise<void> {
  ctx.sqlite.transaction(() => {
    job.complete();
    const runAt = job.payload.run_at;
    const now = ctx.clock.now();
    // Read and locked in one statement (the row is written below anyway): on PostgreSQL a change or
    // cancel on another process then waits for this run, or this run sees it.
    const schedule = ctx.db
      .update(schedules)
      .set({ updatedAt: now })
      .where(and(eq(schedules.id, job.payload.schedule_id), eq(schedules.nextRunAt, runAt), inArray(schedules.status, [...WAITING_STATUSES])))
      .returning()
      .get();
    // Canceled, moved, or already handled: this job's time is no longer the schedule's next run.
    if (!schedule) return;
    const grace = ctx.config.scheduleGraceMinutes * MINUTE;
    // After an outage a recurring schedule may owe several runs: the latest is placed if it is within
    // the grace period (one call, not a burst of them to the same person), the others are missed.
    const owed = owedRuns(schedule, runAt, now, grace);
    const latest = owed[owed.length - 1]!;
    const placeable = now - latest <= grace;
    for (const at of placeable ? owed.slice(0, -1) : owed) recordMissed(ctx, schedule, at, now, now - at > grace ? null : latest);
    const outcome = placeable ? dispatch(ctx, placeCall, schedule, latest) : "missed";
    advance(ctx, schedule, now, outcome);
  })();
}

type RunOutcome = "dispatched" | "missed" | "failed";

function dispatch(ctx: AppContext, placeCall: PlaceScheduledCall, schedule: ScheduleRow, runAt: number): RunOutcome {
  const now = ctx.clock.now();
  try {
    const call = placeCall(schedule.workspaceId, { agent_id: schedule.agentId, to: schedule.to, from: schedule.from ?? undefined, variables: schedule.variables, metadata: { ...schedule.metadata, schedule_id: schedule.id } }, { reach: schedule.reach });
    ctx.db.insert(scheduleRuns).values({ scheduleId: schedule.id, runAt, status: "dispatched", callId: call.id, detail: null, createdAt: now }).run();
    return "dispatched";
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    // The agent could not call (deleted, no number, not ready, a carrier its test key may not reach): the run fails visibly; later runs still try.
    ctx.db.insert(scheduleRuns).values({ scheduleId: schedule.id, runAt, status: "failed", callId: null, detail: error.message, createdAt: now }).run();
    return "failed";
  }
}

/**
 * The runs due by `now`, oldest first: this one, for recurring schedules every later occurrence an
 * outage swallowed (at most MAX_MISSED_RECORDED), and past that cap the latest occurrence still
 * within the grace period, if any (the ones between are not recorded one by one).
 */
function owedRuns(schedule: ScheduleRow, runAt: number, now: number, grace: number): number[] {
  const owed = [runAt];
  if (!schedule.cron || !schedule.timezone) return owed;
  const cron = cronOf(schedule.cron, schedule.timezone);
  const following = (at: number) => cron.nextRun(new Date(at))?.getTime() ?? null;
  try {
    for (let at = following(runAt); at !== null && at <= now && owed.length < MAX_MISSED_RECORDED; at = following(at)) owed.push(at);
    if (owed.length < MAX_MISSED_RECORDED) return owed;
    const last = owed[owed.length - 1]!;
    let latest: number | null = null;
    for (let at = following(Math.max(last, now - grace - 1)); at !== null && at <= now; at = following(at)) latest = at;
    if (latest !== null && latest > last) owed.push(latest);
    return owed;
  } finally {
    cron.stop();
  }
}

/** Records one run as missed: too late to place, or (still in time) passed over for a later run, `supersededBy`. */
function recordMissed(ctx: AppContext, schedule: ScheduleRow, at: number, now: number, supersededBy: number | null): void {
  const detail =
    supersededBy === null
      ? `the server was not running ${Math.round((now - at) / MINUTE)} min after this run was due`
      : `a later run, at ${toIso(supersededBy)}, was also due and only that one was placed`;
  ctx.db.insert(scheduleRuns).values({ scheduleId: schedule.id, runAt: at, status: "missed", callId: null, detail, createdAt: now }).onConflictDoNothing().run();
}

/** One-off schedules are done; recurring ones queue their next run. */
function advance(ctx: AppContext, schedule: ScheduleRow, after: number, outcome: RunOutcome): void {
  const now = ctx.clock.now();
  if (!schedule.cron || !schedule.timezone) {
    ctx.db.update(schedules).set({ status: outcome, nextRunAt: null, updatedAt: now }).where(eq(schedules.id, schedule.id)).run();
    return;
  }
  const next = nextCronRun(schedule.cron, schedule.timezone, Math.max(after, now));
  ctx.db.update(schedules).set({ nextRunAt: next, updatedAt: now }).where(eq(schedules.id, schedule.id)).run();
  if (next !== null) enqueueRun(ctx, schedule, next);
}
