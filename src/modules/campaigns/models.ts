import { t } from "elysia";
import { CAMPAIGN_STATUSES, CONTACT_STATUSES, type campaignContacts, type campaigns } from "../../db/schema/index.ts";
import { NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { Simulation } from "../calls/models.ts";
import { E164 } from "../phone-numbers/models.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export type CampaignRow = typeof campaigns.$inferSelect;
export type ContactRow = typeof campaignContacts.$inferSelect;

const Clock = t.String({ pattern: "^([01]\\d|2[0-3]):[0-5]\\d$|^24:00$", description: "Local time HH:MM" });
const DAY_NAMES = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;

export const WindowInput = t.Object(
  {
    days: t.Array(t.Union([t.Integer({ minimum: 1, maximum: 7 }), OneOf(DAY_NAMES)]), {
      minItems: 1,
      maxItems: 7,
      uniqueItems: true,
      description: "Days of the week: 1 (Monday) … 7 (Sunday), or mon … sun",
    }),
    start: Clock,
    end: Clock,
    timezone: t.String({ description: "IANA time zone of the window, e.g. America/New_York" }),
    contact_timezone: t.Optional(t.Boolean({ description: "Use each contact's `timezone` column when it has one (default true)" })),
  },
  { additionalProperties: false, description: "When contacts may be called, in local time" },
);

export const RetryInput = t.Object(
  {
    on: t.Array(OneOf(["no_answer", "busy", "voicemail", "failed"]), { maxItems: 4, uniqueItems: true, description: "Outcomes worth another attempt" }),
    max_attempts: t.Integer({ minimum: 1, maximum: 10, description: "Attempts in total, the first included" }),
    delay_minutes: t.Integer({ minimum: 1, maximum: 10080, description: "Wait before the next attempt" }),
  },
  { additionalProperties: false },
);

const settings = {
  name: t.String({ minLength: 1, maxLength: 200 }),
  agent_id: t.String(),
  from_number_id: t.Union([t.String(), t.Null()], { description: "Caller id `pn_…`; default the agent's number" }),
  concurrency: t.Integer({ minimum: 1, maximum: 500, description: "Simultaneous calls at most" }),
  calls_per_minute: t.Integer({ minimum: 1, maximum: 6000, description: "New calls per minute at most, spread evenly" }),
  window: t.Union([WindowInput, t.Null()], { description: "null: any time" }),
  retry: RetryInput,
  default_country: t.String({ pattern: "^[A-Z]{2}$", description: "Country of numbers written without +country code (ISO 3166-1 alpha-2)" }),
  do_not_call: t.Array(E164, { maxItems: 100_000, description: "Numbers never to call; uploads reject them row by row" }),
  start_at: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "Dial no earlier than this" }),
  end_at: t.Union([t.String({ format: "date-time" }), t.Null()], { description: "Contacts still waiting then are skipped and the campaign completes" }),
  metadata: t.Record(t.String(), t.Unknown()),
  simulation: t.Union([Simulation, t.Null()], { description: "Simulated carrier only: how every callee behaves, as in an outbound call's `simulation`" }),
};

const { name, agent_id, ...optional } = settings;
export const CampaignCreate = t.Composite([t.Object({ name, agent_id }), t.Partial(t.Object(optional))], { additionalProperties: false });
export const CampaignUpdate = t.Partial(t.Object(settings), { additionalProperties: false });

export const Counts = t.Object(Object.fromEntries(["total", ...CONTACT_STATUSES].map((status) => [status, t.Integer()])) as Record<"total" | (typeof CONTACT_STATUSES)[number], ReturnType<typeof t.Integer>>);

export const Campaign = t.Object({
  id: t.String({ description: "`cmp_…`" }),
  object: t.Literal("campaign"),
  name: t.String(),
  agent_id: t.String(),
  from_number_id: t.Union([t.String(), t.Null()]),
  status: OneOf(CAMPAIGN_STATUSES),
  concurrency: t.Integer(),
  calls_per_minute: t.Integer(),
  window: t.Union([t.Object({ days: t.Array(t.Integer()), start: t.String(), end: t.String(), timezone: t.String(), contact_timezone: t.Boolean() }), t.Null()]),
  retry: t.Object({ on: t.Array(t.String()), max_attempts: t.Integer(), delay_minutes: t.Integer() }),
  default_country: t.String(),
  do_not_call: t.Array(t.String()),
  columns: t.Array(t.Object({ header: t.String(), variable: t.String() }), { description: "The uploaded file's columns and the variable each became" }),
  counts: Counts,
  last_error: t.Union([t.String(), t.Null()], { description: "Why dialing stopped, when it did on its own" }),
  start_at: NullableTimestamp,
  end_at: NullableTimestamp,
  metadata: t.Record(t.String(), t.Unknown()),
  simulation: t.Union([t.Record(t.String(), t.Unknown()), t.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
  started_at: NullableTimestamp,
  completed_at: NullableTimestamp,
});

export const Contact = t.Object({
  id: t.Integer(),
  object: t.Literal("campaign_contact"),
  line: t.Integer({ description: "Line of the uploaded file (1 is the header)" }),
  phone: t.String({ description: "E.164" }),
  raw_phone: t.String({ description: "As written in the file" }),
  variables: t.Record(t.String(), t.String()),
  timezone: t.Union([t.String(), t.Null()]),
  status: OneOf(CONTACT_STATUSES),
  attempts: t.Integer(),
  next_attempt_at: NullableTimestamp,
  last_call_id: t.Union([t.String(), t.Null()]),
  last_end_reason: t.Union([t.String(), t.Null()]),
  updated_at: Timestamp,
});

export function campaignJson(row: CampaignRow, counts: Record<string, number>) {
  return {
    id: row.id,
    object: "campaign" as const,
    name: row.name,
    agent_id: row.agentId,
    from_number_id: row.fromNumberId,
    status: row.status,
    concurrency: row.concurrency,
    calls_per_minute: row.callsPerMinute,
    window: row.window,
    retry: row.retry,
    default_country: row.defaultCountry,
    do_not_call: row.doNotCall,
    columns: row.columns,
    counts: counts as Record<"total" | (typeof CONTACT_STATUSES)[number], number>,
    last_error: row.lastError,
    start_at: toIso(row.startAt),
    end_at: toIso(row.endAt),
    metadata: row.metadata,
    simulation: row.simulation,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
    started_at: toIso(row.startedAt),
    completed_at: toIso(row.completedAt),
  };
}

export function contactJson(row: ContactRow) {
  return {
    id: row.id,
    object: "campaign_contact" as const,
    line: row.line,
    phone: row.phone,
    raw_phone: row.rawPhone,
    variables: row.variables,
    timezone: row.timezone,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: toIso(row.nextAttemptAt),
    last_call_id: row.lastCallId,
    last_end_reason: row.lastEndReason,
    updated_at: toIso(row.updatedAt),
  };
}

nameSchemas({ CampaignWindow: WindowInput, CampaignRetry: RetryInput, CampaignCreate, CampaignUpdate, CampaignCounts: Counts, Campaign, CampaignContact: Contact });
