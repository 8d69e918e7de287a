import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

export const CALL_STATUSES = ["queued", "ringing", "in_progress", "completed", "transferred", "failed", "no_answer", "busy", "canceled"] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export const LIVE_STATUSES: CallStatus[] = ["queued", "ringing", "in_progress"];

/** Numbers a workspace owns on a carrier, and the agent that answers them. */
export const phoneNumbers = sqliteTable("phone_numbers", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  number: text("number").notNull(),
  carrier: text("carrier").notNull(),
  label: text("label"),
  /** `bought` from the carrier here, or `imported` (brought): releasing gives back only what was bought. */
  origin: text("origin").notNull().default("bought").$type<"bought" | "imported">(),
  agentId: text("agent_id"),
  /** What an inbound call does when no agent is assigned, etc. */
  inbound: text("inbound", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [uniqueIndex("phone_numbers_number_unique").on(t.number), index("phone_numbers_workspace_idx").on(t.workspaceId, t.createdAt, t.id), index("phone_numbers_agent_idx").on(t.agentId)]);

export const calls = sqliteTable("calls", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  agentId: text("agent_id").notNull(),
  agentVersion: integer("agent_version").notNull(),
  direction: text("direction", { enum: ["inbound", "outbound", "web"] }).notNull(),
  fromNumber: text("from_number"),
  toNumber: text("to_number"),
  phoneNumberId: text("phone_number_id"),
  carrier: text("carrier").notNull(),
  /** The campaign that placed it (campaign figures sum its calls, retries included). */
  campaignId: text("campaign_id"),
  /** The agent test run that placed it: a test call is not billed, counted in analytics or listed by default. */
  testRunId: text("test_run_id"),
  status: text("status", { enum: CALL_STATUSES }).notNull(),
  endReason: text("end_reason"),
  variables: text("variables", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  metadata: text("metadata", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  /** Carrier-side settings for this call (the simulated callee's behaviour, for instance). */
  carrierOptions: text("carrier_options", { mode: "json" }).$type<Record<string, unknown>>(),
  transcript: text("transcript", { mode: "json" }).$type<unknown[]>(),
  extracted: text("extracted", { mode: "json" }).$type<Record<string, unknown>>(),
  summary: text("summary"),
  transferredTo: text("transferred_to"),
  recordingPath: text("recording_path"),
  /** The node holding the call's media (its leg), set as it rings or is answered; controls are forwarded there. */
  nodeId: text("node_id"),
  /** Set when the recording, transcript and extracted data were erased; the row stays for billing. */
  erasedAt: integer("erased_at"),
  createdAt: integer("created_at").notNull(),
  ringingAt: integer("ringing_at"),
  answeredAt: integer("answered_at"),
  endedAt: integer("ended_at"),
  durationMs: integer("duration_ms"),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [
  index("calls_workspace_idx").on(t.workspaceId, t.createdAt, t.id),
  index("calls_agent_idx").on(t.workspaceId, t.agentId, t.createdAt),
  // The list's number filter reads each side in order from its own index (see listCalls).
  index("calls_from_number_idx").on(t.workspaceId, t.fromNumber, t.createdAt, t.id),
  index("calls_to_number_idx").on(t.workspaceId, t.toNumber, t.createdAt, t.id),
  index("calls_status_idx").on(t.status),
  index("calls_campaign_idx").on(t.campaignId),
  index("calls_test_run_idx").on(t.testRunId).where(sql`test_run_id IS NOT NULL`),
  // A lost node's live calls, found without reading every call.
  index("calls_node_live_idx").on(t.nodeId).where(sql`status IN ('ringing', 'in_progress')`),
]);

/** The call's timeline: status changes, turns, tool calls, latencies, errors. */
export const callEvents = sqliteTable("call_events", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  callId: text("call_id").notNull().references(() => calls.id, { onDelete: "cascade" }),
  workspaceId: text("workspace_id").notNull(),
  type: text("type").notNull(),
  /** Milliseconds since the call was created. */
  offsetMs: integer("offset_ms").notNull(),
  data: text("data", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("call_events_call_idx").on(t.callId, t.id)]);
