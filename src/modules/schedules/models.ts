import { t } from "elysia";
import { SCHEDULE_STATUSES, type scheduleRuns, type schedules } from "../../db/schema/index.ts";
import { NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { E164 } from "../phone-numbers/models.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export type ScheduleRow = typeof schedules.$inferSelect;
type RunRow = typeof scheduleRuns.$inferSelect;

const fields = {
  agent_id: t.String(),
  to: E164,
  from: t.Union([E164, t.Null()], { description: "Caller id (an owned number); default the agent's" }),
  at: t.String({ description: "One call at this moment: ISO 8601 with an offset, in the future" }),
  cron: t.String({ maxLength: 100, description: "Recurring: a cron pattern (minute hour day month weekday), evaluated in `timezone`" }),
  timezone: t.String({ description: "IANA time zone of `cron` (default UTC)" }),
  variables: t.Record(t.String(), t.Unknown(), { description: "Fill the agent's {{variables}}" }),
  metadata: t.Record(t.String(), t.Unknown()),
};

const { agent_id, to, ...optional } = fields;
export const ScheduleCreate = t.Composite([t.Object({ agent_id, to }), t.Partial(t.Object(optional))], { additionalProperties: false });
export const ScheduleUpdate = t.Partial(t.Object(fields), { additionalProperties: false });

export const Schedule = t.Object({
  id: t.String({ description: "`sch_…`" }),
  object: t.Literal("schedule"),
  agent_id: t.String(),
  to: t.String(),
  from: t.Union([t.String(), t.Null()]),
  kind: OneOf(["one_off", "recurring"]),
  at: NullableTimestamp,
  cron: t.Union([t.String(), t.Null()]),
  timezone: t.Union([t.String(), t.Null()]),
  status: OneOf(SCHEDULE_STATUSES, { description: "one-off: scheduled → dispatched | missed | failed, or canceled; recurring: active until canceled" }),
  next_run_at: NullableTimestamp,
  variables: t.Record(t.String(), t.Unknown()),
  metadata: t.Record(t.String(), t.Unknown()),
  runs: t.Array(
    t.Object({ run_at: Timestamp, status: OneOf(["dispatched", "missed", "failed"]), call_id: t.Union([t.String(), t.Null()]), detail: t.Union([t.String(), t.Null()]) }),
    { description: "The latest runs, newest first" },
  ),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export function scheduleJson(row: ScheduleRow, runs: RunRow[]) {
  return {
    id: row.id,
    object: "schedule" as const,
    agent_id: row.agentId,
    to: row.to,
    from: row.from,
    kind: row.cron ? ("recurring" as const) : ("one_off" as const),
    at: toIso(row.at),
    cron: row.cron,
    timezone: row.timezone,
    status: row.status,
    next_run_at: toIso(row.nextRunAt),
    variables: row.variables,
    metadata: row.metadata,
    runs: runs.map((run) => ({ run_at: toIso(run.runAt), status: run.status, call_id: run.callId, detail: run.detail })),
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

nameSchemas({ ScheduleCreate, ScheduleUpdate, Schedule });
