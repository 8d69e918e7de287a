import { and, eq } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { agentWebhooks } from "../db/schema/index.ts";
import { newTimeOrderedId } from "../lib/ids.ts";
import { toIso } from "../lib/time.ts";
import { enqueueJob } from "../jobs/queue.ts";
import { DELIVERY_JOB_RUN_LIMIT } from "./retry-policy.ts";
import { enabledEndpoints, insertDelivery, insertEvent } from "./statements.ts";
import { AGENT_EVENT_TYPES, TEST_EVENT_TYPE, type AgentEventType, type WorkspaceEventType } from "./event-types.ts";

export const DELIVER_JOB = "webhooks.deliver";

export interface Published {
  eventId: string;
  deliveryIds: string[];
}

/**
 * Records a Set B event and one delivery (with its job) per subscribed, enabled endpoint.
 * Synchronous: call it inside the transaction that makes the change it reports, so the event
 * exists exactly when the change does.
 */
export function publishWorkspaceEvent(
  ctx: AppContext,
  input: { workspaceId: string; type: WorkspaceEventType | typeof TEST_EVENT_TYPE; data: Record<string, unknown>; onlyEndpointId?: string },
): Published {
  return ctx.sqlite.transaction(() => {
    const now = ctx.clock.now();
    const eventId = newTimeOrderedId("evt", now);
    const body = JSON.stringify({ event: input.type, id: eventId, ts: toIso(now), data: input.data });
    // Outcome events of a call name it, so a call's events (both channels) are found by call_id.
    const callId = typeof input.data.call_id === "string" ? input.data.call_id : null;
    insertEvent(ctx.db).run({ id: eventId, workspaceId: input.workspaceId, channel: "workspace", type: input.type, agentId: null, callId, body, createdAt: now });
    const endpoints = enabledEndpoints(ctx.db).all({ workspaceId: input.workspaceId });
    const targets = input.onlyEndpointId
      ? endpoints.filter((e) => e.id === input.onlyEndpointId)
      : endpoints.filter((e) => e.eventTypes.includes(input.type));
    const deliveryIds = targets.map((endpoint) => addDelivery(ctx, input.workspaceId, eventId, { endpointId: endpoint.id }));
    return { eventId, deliveryIds };
  })();
}

/** Records a Set A event for the agent's webhook_url (if it has one and wants this type). Same rules. */
export function publishAgentEvent(
  ctx: AppContext,
  input: { workspaceId: string; agentId: string; callId: string | null; type: AgentEventType | typeof TEST_EVENT_TYPE; data: Record<string, unknown> },
): Published {
  return ctx.sqlite.transaction(() => {
    const now = ctx.clock.now();
    const eventId = newTimeOrderedId("evt", now);
    const body = JSON.stringify({ type: input.type, event_id: eventId, call_id: input.callId, agent_id: input.agentId, timestamp: toIso(now), data: input.data });
    insertEvent(ctx.db).run({ id: eventId, workspaceId: input.workspaceId, channel: "agent", type: input.type, agentId: input.agentId, callId: input.callId, body, createdAt: now });
    const hook = ctx.db
      .select({ url: agentWebhooks.url, eventTypes: agentWebhooks.eventTypes })
      .from(agentWebhooks)
      .where(and(eq(agentWebhooks.agentId, input.agentId), eq(agentWebhooks.workspaceId, input.workspaceId)))
      .get();
    const wanted = input.type === TEST_EVENT_TYPE || (hook?.eventTypes.length ? hook.eventTypes : AGENT_EVENT_TYPES).includes(input.type);
    const deliveryIds = hook?.url && wanted ? [addDelivery(ctx, input.workspaceId, eventId, { agentId: input.agentId })] : [];
    return { eventId, deliveryIds };
  })();
}

function addDelivery(ctx: AppContext, workspaceId: string, eventId: string, target: { endpointId?: string; agentId?: string }): string {
  const now = ctx.clock.now();
  const id = newTimeOrderedId("dlv", now);
  insertDelivery(ctx.db).run({ id, workspaceId, eventId, endpointId: target.endpointId ?? null, agentId: target.agentId ?? null, state: "pending", nextAttemptAt: now, createdAt: now, updatedAt: now });
  enqueueDelivery(ctx, workspaceId, id, now);
  return id;
}

export function enqueueDelivery(ctx: AppContext, workspaceId: string, deliveryId: string, runAt: number): void {
  enqueueJob(ctx, { type: DELIVER_JOB, payload: { delivery_id: deliveryId }, uniqueKey: `${DELIVER_JOB}:${deliveryId}`, workspaceId, runAt, maxAttempts: DELIVERY_JOB_RUN_LIMIT });
}
