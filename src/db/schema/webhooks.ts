import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

/** Set B destinations: a workspace's endpoints, each subscribed to the outcome types it wants. */
export const webhookEndpoints = sqliteTable("webhook_endpoints", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  url: text("url").notNull(),
  description: text("description"),
  eventTypes: text("event_types", { mode: "json" }).notNull().$type<string[]>(),
  /** Sealed with the instance key; shown once at creation or rotation. */
  secret: text("secret").notNull(),
  /** The secret before the last rotation, still signed with until previous_secret_expires_at. */
  previousSecret: text("previous_secret"),
  previousSecretExpiresAt: integer("previous_secret_expires_at"),
  status: text("status", { enum: ["enabled", "disabled"] }).notNull(),
  disabledReason: text("disabled_reason"),
  /** Start of the current run of failed attempts; null while the endpoint answers. */
  failingSince: integer("failing_since"),
  consecutiveFailures: integer("consecutive_failures").notNull().default(0),
  /** Circuit breaker: deliveries wait until then instead of spending attempts. */
  breakerOpenUntil: integer("breaker_open_until"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("webhook_endpoints_workspace_idx").on(t.workspaceId, t.createdAt, t.id)]);

/**
 * Set A destination: an agent's webhook_url and signing secret. Kept by the webhooks module, keyed by
 * the agent, so the call-lifecycle channel needs nothing else from the agent record.
 */
export const agentWebhooks = sqliteTable("agent_webhooks", {
  agentId: text("agent_id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  url: text("url"),
  eventTypes: text("event_types", { mode: "json" }).notNull().$type<string[]>(),
  secret: text("secret").notNull(),
  previousSecret: text("previous_secret"),
  previousSecretExpiresAt: integer("previous_secret_expires_at"),
  updatedAt: integer("updated_at").notNull(),
});

/** The outbox: written in the same transaction as the change it reports; `body` is exactly what is sent. */
export const events = sqliteTable("events", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  channel: text("channel", { enum: ["agent", "workspace"] }).notNull(),
  type: text("type").notNull(),
  agentId: text("agent_id"),
  callId: text("call_id"),
  body: text("body").notNull(),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("events_workspace_idx").on(t.workspaceId, t.createdAt, t.id), index("events_type_idx").on(t.workspaceId, t.type, t.createdAt), index("events_call_idx").on(t.workspaceId, t.callId, t.createdAt, t.id)]);

/** One event on its way to one destination; `failed` is a dead letter. */
export const webhookDeliveries = sqliteTable("webhook_deliveries", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  eventId: text("event_id").notNull().references(() => events.id, { onDelete: "cascade" }),
  endpointId: text("endpoint_id"),
  agentId: text("agent_id"),
  state: text("state", { enum: ["pending", "delivered", "failed", "discarded"] }).notNull(),
  attempts: integer("attempts").notNull().default(0),
  firstAttemptAt: integer("first_attempt_at"),
  nextAttemptAt: integer("next_attempt_at"),
  lastStatusCode: integer("last_status_code"),
  lastError: text("last_error"),
  deliveredAt: integer("delivered_at"),
  failedAt: integer("failed_at"),
  discardedReason: text("discarded_reason"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [
  index("webhook_deliveries_event_idx").on(t.eventId),
  index("webhook_deliveries_state_idx").on(t.workspaceId, t.state, t.failedAt, t.id),
  index("webhook_deliveries_endpoint_idx").on(t.endpointId, t.state),
]);

/** Every HTTP attempt, as the receiver answered it. */
export const webhookAttempts = sqliteTable("webhook_attempts", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  deliveryId: text("delivery_id").notNull().references(() => webhookDeliveries.id, { onDelete: "cascade" }),
  eventId: text("event_id").notNull(),
  endpointId: text("endpoint_id"),
  agentId: text("agent_id"),
  attempt: integer("attempt").notNull(),
  url: text("url").notNull(),
  statusCode: integer("status_code"),
  durationMs: integer("duration_ms").notNull(),
  /** At most 1 KiB of the response body. */
  responseExcerpt: text("response_excerpt"),
  error: text("error"),
  createdAt: integer("created_at").notNull(),
}, (t) => [index("webhook_attempts_workspace_idx").on(t.workspaceId, t.createdAt, t.id), index("webhook_attempts_delivery_idx").on(t.deliveryId, t.attempt)]);
