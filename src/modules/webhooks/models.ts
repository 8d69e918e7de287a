import { t } from "elysia";
import { NullableTimestamp, OneOf, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { webhookAttempts, webhookDeliveries, webhookEndpoints, events } from "../../db/schema/index.ts";
import { BREAKER_THRESHOLD } from "../../webhooks/delivery.ts";
import { WORKSPACE_EVENT_TYPES } from "../../webhooks/event-types.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type EventRow = typeof events.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

const EventType = OneOf(WORKSPACE_EVENT_TYPES);

export const Endpoint = t.Object({
  id: t.String({ description: "`whe_…`" }),
  object: t.Literal("webhook_endpoint"),
  url: t.String(),
  description: t.Union([t.String(), t.Null()]),
  events: t.Array(EventType),
  status: t.Union([t.Literal("enabled"), t.Literal("disabled")]),
  disabled_reason: t.Union([t.String(), t.Null()], { description: "Why it stopped receiving, e.g. after failing for 5 days" }),
  health: t.Object({
    consecutive_failures: t.Integer(),
    failing_since: NullableTimestamp,
    breaker: t.Union([t.Literal("closed"), t.Literal("open")], { description: "While open, deliveries wait instead of spending attempts" }),
    breaker_open_until: NullableTimestamp,
  }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const EndpointWithSecret = t.Composite([
  Endpoint,
  t.Object({ secret: t.String({ description: "`whsec_…`, shown this once. After a rotation the previous secret keeps signing for 24 h." }) }),
]);

export const EndpointCreate = t.Object(
  {
    url: t.String({ minLength: 1, maxLength: 2048, description: "Absolute https URL (http and private addresses only when the operator allows them)" }),
    events: t.Array(EventType, { minItems: 1, maxItems: WORKSPACE_EVENT_TYPES.length, uniqueItems: true }),
    description: t.Optional(t.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const EndpointUpdate = t.Object(
  {
    url: t.Optional(EndpointCreate.properties.url),
    events: t.Optional(EndpointCreate.properties.events),
    description: t.Optional(t.Union([t.String({ maxLength: 500 }), t.Null()])),
    status: t.Optional(t.Union([t.Literal("enabled"), t.Literal("disabled")], { description: "Enabling clears the failure history and closes the breaker" })),
  },
  { additionalProperties: false },
);

export const Attempt = t.Object({
  id: t.String(),
  object: t.Literal("webhook_attempt"),
  delivery_id: t.String(),
  event_id: t.String(),
  endpoint_id: t.Union([t.String(), t.Null()]),
  agent_id: t.Union([t.String(), t.Null()]),
  attempt: t.Integer({ description: "1 for the first try" }),
  url: t.String(),
  succeeded: t.Boolean(),
  status_code: t.Union([t.Integer(), t.Null()]),
  duration_ms: t.Integer(),
  response_excerpt: t.Union([t.String(), t.Null()], { description: "First KiB of the response body" }),
  error: t.Union([t.String(), t.Null()], { description: "Time-out, connection error or refusal, when there was no HTTP answer" }),
  created_at: Timestamp,
});

export const Delivery = t.Object({
  id: t.String({ description: "`dlv_…`" }),
  object: t.Literal("webhook_delivery"),
  event_id: t.String(),
  event_type: t.String(),
  endpoint_id: t.Union([t.String(), t.Null()]),
  agent_id: t.Union([t.String(), t.Null()]),
  state: t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed"), t.Literal("discarded")], {
    description: "failed = dead letter (replayable); discarded = the destination no longer exists",
  }),
  attempts: t.Integer(),
  next_attempt_at: NullableTimestamp,
  last_status_code: t.Union([t.Integer(), t.Null()]),
  last_error: t.Union([t.String(), t.Null()]),
  delivered_at: NullableTimestamp,
  failed_at: NullableTimestamp,
  discarded_reason: t.Union([t.String(), t.Null()]),
  created_at: Timestamp,
});

export const Event = t.Object({
  id: t.String({ description: "`evt_…`" }),
  object: t.Literal("event"),
  channel: t.Union([t.Literal("agent"), t.Literal("workspace")], { description: "agent: call lifecycle (Set A); workspace: outcomes (Set B)" }),
  type: t.String(),
  agent_id: t.Union([t.String(), t.Null()]),
  call_id: t.Union([t.String(), t.Null()]),
  payload: t.Record(t.String(), t.Unknown(), { description: "Exactly the JSON body sent to receivers" }),
  delivery_count: t.Integer({
    minimum: 0,
    description: "Deliveries made of it: one per destination that wanted it when it happened (the agent's webhook_url; each enabled endpoint subscribed to its type). 0: it is only in this log, sent nowhere",
  }),
  created_at: Timestamp,
});

export const EventWithDeliveries = t.Composite([Event, t.Object({ deliveries: t.Array(Delivery) })]);

export const TestResult = t.Object({
  event_id: t.String(),
  delivery: Delivery,
  attempt: t.Union([Attempt, t.Null()], { description: "The first attempt, if it finished within the request; otherwise see the delivery" }),
});

export function endpointJson(row: EndpointRow, now: number) {
  const open = row.consecutiveFailures >= BREAKER_THRESHOLD && (row.breakerOpenUntil ?? 0) > now;
  return {
    id: row.id,
    object: "webhook_endpoint" as const,
    url: row.url,
    description: row.description,
    events: row.eventTypes as (typeof WORKSPACE_EVENT_TYPES)[number][],
    status: row.status,
    disabled_reason: row.disabledReason,
    health: {
      consecutive_failures: row.consecutiveFailures,
      failing_since: toIso(row.failingSince),
      breaker: open ? ("open" as const) : ("closed" as const),
      breaker_open_until: open ? toIso(row.breakerOpenUntil) : null,
    },
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export function eventJson(row: EventRow & { deliveryCount: number }) {
  return {
    id: row.id,
    object: "event" as const,
    channel: row.channel,
    type: row.type,
    agent_id: row.agentId,
    call_id: row.callId,
    payload: JSON.parse(row.body) as Record<string, unknown>,
    delivery_count: row.deliveryCount,
    created_at: toIso(row.createdAt),
  };
}

export function deliveryJson(row: DeliveryRow, eventType: string) {
  return {
    id: row.id,
    object: "webhook_delivery" as const,
    event_id: row.eventId,
    event_type: eventType,
    endpoint_id: row.endpointId,
    agent_id: row.agentId,
    state: row.state,
    attempts: row.attempts,
    next_attempt_at: row.state === "pending" ? toIso(row.nextAttemptAt) : null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    delivered_at: toIso(row.deliveredAt),
    failed_at: toIso(row.failedAt),
    discarded_reason: row.discardedReason,
    created_at: toIso(row.createdAt),
  };
}

export function attemptJson(row: AttemptRow) {
  return {
    id: row.id,
    object: "webhook_attempt" as const,
    delivery_id: row.deliveryId,
    event_id: row.eventId,
    endpoint_id: row.endpointId,
    agent_id: row.agentId,
    attempt: row.attempt,
    url: row.url,
    succeeded: row.statusCode !== null && row.statusCode >= 200 && row.statusCode < 300,
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    response_excerpt: row.responseExcerpt,
    error: row.error,
    created_at: toIso(row.createdAt),
  };
}

nameSchemas({ WebhookEndpoint: Endpoint, WebhookEndpointWithSecret: EndpointWithSecret, WebhookEndpointCreate: EndpointCreate, WebhookEndpointUpdate: EndpointUpdate, WebhookAttempt: Attempt, WebhookDelivery: Delivery, Event, EventWithDeliveries, WebhookTestResult: TestResult });
