import { and, asc, desc, eq, getTableColumns, gte, lt, or, isNotNull, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from "../../db/schema/index.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
export type EventRow = typeof events.$inferSelect;
export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
export type AttemptRow = typeof webhookAttempts.$inferSelect;

export function findEndpoint(db: Db, workspaceId: string, id: string): EndpointRow | undefined {
  return db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id))).get();
}

export function listEndpoints(db: Db, workspaceId: string, page: PageRequest): EndpointRow[] {
  return db
    .select()
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, workspaceId), afterCursor(webhookEndpoints.createdAt, webhookEndpoints.id, page.after)))
    .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
    .limit(page.limit + 1)
    .all();
}

/** An event with how many deliveries were made of it (0: no destination wanted it, so it went nowhere). */
export type EventWithCount = EventRow & { deliveryCount: number };

export function listEvents(db: Db, workspaceId: string, filter: { type?: string; channel?: "agent" | "workspace"; callId?: string }, page: PageRequest): EventWithCount[] {
  const conditions: (SQL | undefined)[] = [eq(events.workspaceId, workspaceId), afterCursor(events.createdAt, events.id, page.after)];
  if (filter.type) conditions.push(eq(events.type, filter.type));
  if (filter.channel) conditions.push(eq(events.channel, filter.channel));
  if (filter.callId) conditions.push(eq(events.callId, filter.callId));
  // Written out: drizzle leaves a lone table's columns unqualified, which the subquery would read as its own.
  const deliveryCount = sql<number>`(select count(*) from webhook_deliveries d where d.event_id = events.id)`.mapWith(Number);
  return db.select({ ...getTableColumns(events), deliveryCount }).from(events).where(and(...conditions)).orderBy(desc(events.createdAt), desc(events.id)).limit(page.limit + 1).all();
}

export function findEvent(db: Db, workspaceId: string, id: string): EventRow | undefined {
  return db.select().from(events).where(and(eq(events.workspaceId, workspaceId), eq(events.id, id))).get();
}

const deliveryWithType = { delivery: webhookDeliveries, eventType: events.type };

export function deliveriesOfEvent(db: Db, workspaceId: string, eventId: string) {
  return db
    .select(deliveryWithType)
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.eventId, eventId)))
    .orderBy(webhookDeliveries.createdAt)
    .all();
}

export function findDelivery(db: Db, workspaceId: string, id: string) {
  return db
    .select(deliveryWithType)
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(eq(webhookDeliveries.workspaceId, workspaceId), eq(webhookDeliveries.id, id)))
    .get();
}

/** Dead letters, newest failure first. */
export function listDeadLetters(db: Db, workspaceId: string, filter: { endpointId?: string }, page: PageRequest) {
  const conditions: (SQL | undefined)[] = [
    eq(webhookDeliveries.workspaceId, workspaceId),
    eq(webhookDeliveries.state, "failed"),
    isNotNull(webhookDeliveries.failedAt),
  ];
  if (filter.endpointId) conditions.push(eq(webhookDeliveries.endpointId, filter.endpointId));
  if (page.after) {
    conditions.push(or(lt(webhookDeliveries.failedAt, page.after.at), and(eq(webhookDeliveries.failedAt, page.after.at), lt(webhookDeliveries.id, page.after.id))));
  }
  return db
    .select(deliveryWithType)
    .from(webhookDeliveries)
    .innerJoin(events, eq(events.id, webhookDeliveries.eventId))
    .where(and(...conditions))
    .orderBy(desc(webhookDeliveries.failedAt), desc(webhookDeliveries.id))
    .limit(page.limit + 1)
    .all();
}

export interface AttemptFilter {
  endpointId?: string;
  agentId?: string;
  eventId?: string;
  deliveryId?: string;
  outcome?: "succeeded" | "failed";
  since?: number;
}

export function listAttempts(db: Db, workspaceId: string, filter: AttemptFilter, page: PageRequest): AttemptRow[] {
  const conditions: (SQL | undefined)[] = [eq(webhookAttempts.workspaceId, workspaceId), afterCursor(webhookAttempts.createdAt, webhookAttempts.id, page.after)];
  if (filter.endpointId) conditions.push(eq(webhookAttempts.endpointId, filter.endpointId));
  if (filter.agentId) conditions.push(eq(webhookAttempts.agentId, filter.agentId));
  if (filter.eventId) conditions.push(eq(webhookAttempts.eventId, filter.eventId));
  if (filter.deliveryId) conditions.push(eq(webhookAttempts.deliveryId, filter.deliveryId));
  if (filter.since !== undefined) conditions.push(gte(webhookAttempts.createdAt, filter.since));
  if (filter.outcome === "succeeded") conditions.push(and(gte(webhookAttempts.statusCode, 200), lt(webhookAttempts.statusCode, 300)));
  if (filter.outcome === "failed") conditions.push(or(isNull(webhookAttempts.statusCode), lt(webhookAttempts.statusCode, 200), gte(webhookAttempts.statusCode, 300)));
  return db
    .select()
    .from(webhookAttempts)
    .where(and(...conditions))
    .orderBy(desc(webhookAttempts.createdAt), desc(webhookAttempts.id))
    .limit(page.limit + 1)
    .all();
}

export function firstAttemptOf(db: Db, deliveryId: string): AttemptRow | undefined {
  return db.select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, deliveryId)).orderBy(asc(webhookAttempts.attempt)).get();
}
