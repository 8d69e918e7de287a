import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

export const CAMPAIGN_STATUSES = ["draft", "running", "paused", "completed", "canceled"] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

export const CONTACT_STATUSES = ["pending", "dialing", "completed", "no_answer", "busy", "failed", "retry_scheduled", "skipped", "canceled"] as const;
export type ContactStatus = (typeof CONTACT_STATUSES)[number];

/** When contacts may be called: days of the week and local hours, in a time zone. */
export interface CallingWindow {
  /** ISO weekdays, 1 = Monday … 7 = Sunday. */
  days: number[];
  /** "HH:MM", local time; end is exclusive and may be "24:00". */
  start: string;
  end: string;
  /** IANA zone of the window; a contact's own `timezone` column wins when `contact_timezone` is on. */
  timezone: string;
  contact_timezone: boolean;
}

/** Which outcomes are tried again, how often and after how long. */
export interface RetryPolicy {
  on: ("no_answer" | "busy" | "voicemail" | "failed")[];
  /** Attempts in total, the first included. */
  max_attempts: number;
  delay_minutes: number;
}

export const campaigns = sqliteTable("campaigns", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  agentId: text("agent_id").notNull(),
  /** The caller id; null: the agent's own number at dial time. */
  fromNumberId: text("from_number_id"),
  /** The carriers the credential that last started it may reach (a test key: the simulated carrier only). */
  reach: text("reach", { enum: ["any", "simulated"] }).notNull().default("any"),
  status: text("status", { enum: CAMPAIGN_STATUSES }).notNull(),
  concurrency: integer("concurrency").notNull(),
  callsPerMinute: integer("calls_per_minute").notNull(),
  window: text("window", { mode: "json" }).$type<CallingWindow | null>(),
  retry: text("retry", { mode: "json" }).notNull().$type<RetryPolicy>(),
  defaultCountry: text("default_country").notNull(),
  /** E.164 numbers never to call; upload rejects them row by row. */
  doNotCall: text("do_not_call", { mode: "json" }).notNull().$type<string[]>(),
  /** Columns of the uploaded file in order: original header and the variable it became. */
  columns: text("columns", { mode: "json" }).notNull().$type<{ header: string; variable: string }[]>(),
  startAt: integer("start_at"),
  /** After this, contacts still waiting are skipped and the campaign completes. */
  endAt: integer("end_at"),
  /** Pacing: the earliest moment the next call may be dialled. */
  nextDialAt: integer("next_dial_at").notNull().default(0),
  /** Why the campaign paused itself (the agent cannot talk, no caller id…); cleared on start. */
  lastError: text("last_error"),
  metadata: text("metadata", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  /** Simulated carrier only: how every callee behaves (as a call's `simulation`). */
  simulation: text("simulation", { mode: "json" }).$type<Record<string, unknown> | null>(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  startedAt: integer("started_at"),
  completedAt: integer("completed_at"),
}, (t) => [index("campaigns_workspace_idx").on(t.workspaceId, t.createdAt, t.id), index("campaigns_status_idx").on(t.status)]);

export const campaignContacts = sqliteTable("campaign_contacts", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  campaignId: text("campaign_id").notNull().references(() => campaigns.id, { onDelete: "cascade" }),
  workspaceId: text("workspace_id").notNull(),
  /** Line of the uploaded file (1 is the header), for people matching results to their sheet. */
  line: integer("line").notNull(),
  phone: text("phone").notNull(),
  rawPhone: text("raw_phone").notNull(),
  variables: text("variables", { mode: "json" }).notNull().$type<Record<string, string>>(),
  timezone: text("timezone"),
  status: text("status", { enum: CONTACT_STATUSES }).notNull(),
  attempts: integer("attempts").notNull().default(0),
  /** retry_scheduled: not before this. */
  nextAttemptAt: integer("next_attempt_at"),
  lastCallId: text("last_call_id"),
  lastEndReason: text("last_end_reason"),
  lastDialedAt: integer("last_dialed_at"),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [
  uniqueIndex("campaign_contacts_phone_unique").on(t.campaignId, t.phone),
  // The dispatcher's questions: who waits, in upload order; in which zones; whose retry is due.
  index("campaign_contacts_queue_idx").on(t.campaignId, t.status, t.id),
  index("campaign_contacts_zone_idx").on(t.campaignId, t.status, t.timezone, t.id),
  index("campaign_contacts_retry_idx").on(t.campaignId, t.status, t.nextAttemptAt),
  index("campaign_contacts_call_idx").on(t.lastCallId),
]);

/** DESIGN's states plus the two ways a one-off run can end without a call: `missed` and `failed`. */
export const SCHEDULE_STATUSES = ["scheduled", "dispatched", "missed", "failed", "canceled", "active"] as const;
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

export const schedules = sqliteTable("schedules", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  agentId: text("agent_id").notNull(),
  to: text("to_number").notNull(),
  from: text("from_number"),
  variables: text("variables", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  metadata: text("metadata", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  /** One-off: the moment; recurring: null. */
  at: integer("at"),
  cron: text("cron"),
  timezone: text("timezone"),
  /** The carriers the credential that created or last changed it may reach (a test key: the simulated carrier only). */
  reach: text("reach", { enum: ["any", "simulated"] }).notNull().default("any"),
  status: text("status", { enum: SCHEDULE_STATUSES }).notNull(),
  /** The run the queue holds a job for; a job for any other time is stale and does nothing. */
  nextRunAt: integer("next_run_at"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("schedules_workspace_idx").on(t.workspaceId, t.createdAt, t.id)]);

export const scheduleRuns = sqliteTable("schedule_runs", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  scheduleId: text("schedule_id").notNull().references(() => schedules.id, { onDelete: "cascade" }),
  runAt: integer("run_at").notNull(),
  status: text("status", { enum: ["dispatched", "missed", "failed"] }).notNull(),
  callId: text("call_id"),
  detail: text("detail"),
  createdAt: integer("created_at").notNull(),
}, (t) => [uniqueIndex("schedule_runs_unique").on(t.scheduleId, t.runAt)]);
