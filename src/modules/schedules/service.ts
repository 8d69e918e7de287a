import { Cron } from "croner";
import { and, desc, eq, inArray, type SQL } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import type { CarrierReach } from "../../telephony/reach.ts";
import { scheduleRuns, schedules } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";
import { newId } from "../../lib/ids.ts";
import { isValidTimeZone, parseIso } from "../../lib/time.ts";
import { enqueueJob } from "../../jobs/queue.ts";
import type { ScheduleRow } from "./models.ts";
import { schedulesPorts } from "./ports.ts";

/** A schedule still to run (one-off, recurring): the only states it may be changed, canceled or run in. */
export const WAITING_STATUSES = ["scheduled", "active"] as const;

/** Schedules that will still call with an agent. */
export const schedulesUsingAgent = (ctx: AppContext, workspaceId: string, agentId: string): string[] =>
  ctx.db
    .select({ id: schedules.id, status: schedules.status })
    .from(schedules)
    .where(and(eq(schedules.workspaceId, workspaceId), eq(schedules.agentId, agentId), inArray(schedules.status, [...WAITING_STATUSES])))
    .all()
    .map((row) => `schedule ${row.id} (${row.status}) calls with it`);

export const RUN_JOB = "schedules.run";

export interface ScheduleInput {
  agent_id?: string;
  to?: string;
  from?: string | null;
  at?: string | null;
  cron?: string | null;
  timezone?: string | null;
  variables?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** `at` must carry its offset: "09:00" means nothing without knowing whose nine o'clock. */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

function parseAt(value: string, now: number): number {
  if (!ISO_WITH_OFFSET.test(value)) throw invalid("at", "must be ISO 8601 with a time zone offset, e.g. 2026-12-01T09:00:00-05:00");
  const at = parseIso(value);
  if (at === null) throw invalid("at", "is not a valid date-time");
  if (at <= now) throw invalid("at", "is in the past");
  return at;
}

export function cronOf(expression: string, timezone: string): Cron {
  try {
    return new Cron(expression, { timezone, paused: true });
  } catch (error) {
    throw invalid("cron", `is not a valid cron expression: ${(error as Error).message}`);
  }
}

/** The next run of a recurring schedule strictly after `after`. */
export function nextCronRun(expression: string, timezone: string, after: number): number | null {
  const cron = cronOf(expression, timezone);
  const next = cron.nextRun(new Date(after));
  cron.stop();
  return next ? next.getTime() : null;
}

function enqueueRun(ctx: AppContext, schedule: Pick<ScheduleRow, "id" | "workspaceId">, runAt: number): void {
  enqueueJob(ctx, { type: RUN_JOB, payload: { schedule_id: schedule.id, run_at: runAt }, uniqueKey: `${RUN_JOB}:${schedule.id}:${runAt}`, runAt, workspaceId: schedule.workspaceId, maxAttempts: 3 });
}

interface Timing {
  at: number | null;
  cron: string | null;
  timezone: string | null;
  nextRunAt: number;
}

function timingOf(ctx: AppContext, input: { at?: string | null; cron?: string | null; timezone?: string | null }): Timing {
  const now = ctx.clock.now();
  if (input.at && input.cron) throw invalid("cron", "give either `at` (one call) or `cron` with `timezone` (recurring), not both");
  if (input.at) {
    if (input.timezone) throw invalid("timezone", "applies to `cron` only; `at` carries its own offset");
    const at = parseAt(input.at, now);
    return { at, cron: null, timezone: null, nextRunAt: at };
  }
  if (input.cron) {
    const timezone = input.timezone ?? "UTC";
    if (!isValidTimeZone(timezone)) throw invalid("timezone", `unknown time zone ${timezone}`);
    const next = nextCronRun(input.cron, timezone, now);
    if (next === null) throw invalid("cron", "never runs");
    // Calls, not heartbeats: a per-second pattern would be a mistake that dials someone every second.
    // Two gaps, not one: `0,30 5 9 * * *` seen at 09:05:15 runs next at :30, then a day later, then 30 s after.
    for (let previous = next, i = 0; i < 2; i++) {
      const after = nextCronRun(input.cron, timezone, previous);
      if (after === null) break;
      if (after - previous < 60_000) throw invalid("cron", "runs more than once a minute");
      previous = after;
    }
    return { at: null, cron: input.cron, timezone, nextRunAt: next };
  }
  throw invalid("at", "give `at` (one call) or `cron` with `timezone` (recurring)");
}

/** A caller id must be one of the workspace's numbers (checked now, not at 3 a.m. when it runs). */
function checkFrom(ctx: AppContext, workspaceId: string, from: string | null | undefined): void {
  if (from && !schedulesPorts(ctx).ownedNumber(workspaceId, from)) throw invalid("from", `${from} is not a number of this workspace`);
}

/** `reach`: the carriers the credential setting it up may reach; its runs dial with no more than that. */
export function createSchedule(ctx: AppContext, workspaceId: string, input: ScheduleInput & { agent_id: string; to: string }, reach: CarrierReach = "any"): ScheduleRow {
  schedulesPorts(ctx).referencedAgent(workspaceId, input.agent_id);
  checkFrom(ctx, workspaceId, input.from);
  const timing = timingOf(ctx, input);
  const now = ctx.clock.now();
  const row: ScheduleRow = {
    id: newId("sch"),
    workspaceId,
    agentId: input.agent_id,
    to: input.to,
    from: input.from ?? null,
    variables: input.variables ?? {},
    metadata: input.metadata ?? {},
    at: timing.at,
    cron: timing.cron,
    timezone: timing.timezone,
    reach,
    status: timing.cron ? "active" : "scheduled",
    nextRunAt: timing.nextRunAt,
    createdAt: now,
    updatedAt: now,
  };
  ctx.sqlite.transaction(() => {
    ctx.db.insert(schedules).values(row).run();
    enqueueRun(ctx, row, timing.nextRunAt);
  })();
  return row;
}

export function getSchedule(ctx: AppContext, workspaceId: string, id: string): ScheduleRow {
  const row = ctx.db.select().from(schedules).where(and(eq(schedules.workspaceId, workspaceId), eq(schedules.id, id))).get();
  if (!row) throw notFound("schedule");
  return row;
}

export function listSchedules(ctx: AppContext, workspaceId: string, page: PageRequest, filter: { status?: ScheduleRow["status"]; agent_id?: string }): ScheduleRow[] {
  const conditions: (SQL | undefined)[] = [eq(schedules.workspaceId, workspaceId), afterCursor(schedules.createdAt, schedules.id, page.after)];
  if (filter.status) conditions.push(eq(schedules.status, filter.status));
  if (filter.agent_id) conditions.push(eq(schedules.agentId, filter.agent_id));
  return ctx.db.select().from(schedules).where(and(...conditions)).orderBy(desc(schedules.createdAt), desc(schedules.id)).limit(page.limit + 1).all();
}

export function runsOf(ctx: AppContext, scheduleId: string, limit = 20) {
  return ctx.db.select().from(scheduleRuns).where(eq(scheduleRuns.scheduleId, scheduleId)).orderBy(desc(scheduleRuns.runAt)).limit(limit).all();
}

function requireChangeable(row: ScheduleRow, action: string): void {
  if ((WAITING_STATUSES as readonly string[]).includes(row.status)) return;
  throw new ApiError("invalid_state", `a ${row.status} schedule cannot ${action}`, { errors: [{ field: "status", message: `is ${row.status}` }] });
}

/**
 * Moves or changes a schedule before it runs. A new time gets a new job; the old one finds the
 * schedule no longer due at its time and does nothing.
 */
export function updateSchedule(ctx: AppContext, workspaceId: string, id: string, input: ScheduleInput, reach: CarrierReach = "any"): ScheduleRow {
  const row = getSchedule(ctx, workspaceId, id);
  requireChangeable(row, "be changed");
  if (input.agent_id !== undefined) schedulesPorts(ctx).referencedAgent(workspaceId, input.agent_id);
  checkFrom(ctx, workspaceId, input.from);
  // Whoever changed it last answers for what it dials.
  const changes: Partial<ScheduleRow> = { reach, updatedAt: ctx.clock.now() };
  if (input.agent_id !== undefined) changes.agentId = input.agent_id;
  if (input.to !== undefined) changes.to = input.to;
  if (input.from !== undefined) changes.from = input.from;
  if (input.variables !== undefined) changes.variables = input.variables;
  if (input.metadata !== undefined) changes.metadata = input.metadata;
  const retimed = input.at !== undefined || input.cron !== undefined || input.timezone !== undefined;
  if (retimed) {
    const oneOff = row.cron === null;
    if (oneOff && (input.cron || input.timezone)) throw invalid("cron", "a one-off schedule stays one-off: cancel it and create a recurring one");
    if (!oneOff && input.at) throw invalid("at", "a recurring schedule stays recurring: cancel it and create a one-off one");
    const timing = oneOff ? timingOf(ctx, { at: input.at ?? null }) : timingOf(ctx, { cron: input.cron ?? row.cron, timezone: input.timezone ?? row.timezone });
    Object.assign(changes, { at: timing.at, cron: timing.cron, timezone: timing.timezone, nextRunAt: timing.nextRunAt });
  }
  ctx.sqlite.transaction(() => {
    if (!ctx.db.update(schedules).set(changes).where(stillWaiting(id)).run().changes) requireChangeable(getSchedule(ctx, workspaceId, id), "be changed");
    if (retimed && changes.nextRunAt) enqueueRun(ctx, row, changes.nextRunAt);
  })();
  return getSchedule(ctx, workspaceId, id);
}

/**
 * The row, if it has not run (or been canceled) since it was read: on PostgreSQL a run on another
 * process may have committed in between, and its outcome must not be written over.
 */
const stillWaiting = (id: string) => and(eq(schedules.id, id), inArray(schedules.status, [...WAITING_STATUSES]));

/** Cancels for good; the row and its runs stay for the record. */
export function cancelSchedule(ctx: AppContext, workspaceId: string, id: string): ScheduleRow {
  const row = getSchedule(ctx, workspaceId, id);
  requireChangeable(row, "be canceled");
  if (!ctx.db.update(schedules).set({ status: "canceled", nextRunAt: null, updatedAt: ctx.clock.now() }).where(stillWaiting(id)).run().changes) {
    requireChangeable(getSchedule(ctx, workspaceId, id), "be canceled");
  }
  return getSchedule(ctx, workspaceId, id);
}

export { enqueueRun };
