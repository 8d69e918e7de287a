import { and, eq, sql } from "drizzle-orm";
import { prepared } from "../db/prepared.ts";
import { events, webhookAttempts, webhookDeliveries, webhookEndpoints } from "../db/schema/index.ts";

// The per-event and per-delivery queries, prepared once per database: publishing and delivering
// run thousands of times a second, and drizzle would otherwise rebuild each statement's SQL.
const p = (name: string) => sql.placeholder(name);
const all = <T extends Record<string, unknown>>(columns: readonly (keyof T & string)[]) => Object.fromEntries(columns.map((c) => [c, p(c)])) as unknown as T;

export const insertEvent = prepared((db) =>
  db.insert(events).values(all<typeof events.$inferInsert>(["id", "workspaceId", "channel", "type", "agentId", "callId", "body", "createdAt"])).prepare(),
);

export const enabledEndpoints = prepared((db) =>
  db
    .select({ id: webhookEndpoints.id, eventTypes: webhookEndpoints.eventTypes })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.workspaceId, p("workspaceId")), eq(webhookEndpoints.status, "enabled")))
    .prepare(),
);

export const insertDelivery = prepared((db) =>
  db
    .insert(webhookDeliveries)
    .values(all<typeof webhookDeliveries.$inferInsert>(["id", "workspaceId", "eventId", "endpointId", "agentId", "state", "nextAttemptAt", "createdAt", "updatedAt"]))
    .prepare(),
);

export const deliveryById = prepared((db) => db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, p("id"))).prepare());

export const eventBody = prepared((db) => db.select({ id: events.id, body: events.body }).from(events).where(eq(events.id, p("id"))).prepare());

export const endpointById = prepared((db) =>
  db.select().from(webhookEndpoints).where(and(eq(webhookEndpoints.id, p("id")), eq(webhookEndpoints.workspaceId, p("workspaceId")))).prepare(),
);

export const insertAttempt = prepared((db) =>
  db
    .insert(webhookAttempts)
    .values(
      all<typeof webhookAttempts.$inferInsert>([
        "id", "workspaceId", "deliveryId", "eventId", "endpointId", "agentId", "attempt", "url", "statusCode", "durationMs", "responseExcerpt", "error", "createdAt",
      ]),
    )
    .prepare(),
);

/** Records an attempt's outcome on its delivery (every column named, so one statement serves all verdicts). */
export const recordDeliveryOutcome = prepared((db) =>
  db
    .update(webhookDeliveries)
    .set(
      all<Partial<typeof webhookDeliveries.$inferInsert>>([
        "state", "attempts", "firstAttemptAt", "lastStatusCode", "lastError", "deliveredAt", "failedAt", "nextAttemptAt", "updatedAt",
      ]),
    )
    .where(eq(webhookDeliveries.id, p("id")))
    .prepare(),
);

export const endpointHealthy = prepared((db) =>
  db
    .update(webhookEndpoints)
    .set({ consecutiveFailures: 0, failingSince: null, breakerOpenUntil: null })
    .where(and(eq(webhookEndpoints.id, p("id")), sql`${webhookEndpoints.consecutiveFailures} > 0`))
    .prepare(),
);
