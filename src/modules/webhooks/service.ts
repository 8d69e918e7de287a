import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { webhookDeliveries, webhookEndpoints } from "../../db/schema/index.ts";
import { ApiError, notFound } from "../../http/errors.ts";
import { newId } from "../../lib/ids.ts";
import { seal } from "../../lib/sealed.ts";
import { DAY } from "../../lib/time.ts";
import { checkOutboundUrlField } from "../../http/url-field.ts";
import { TEST_EVENT_TYPE, type WorkspaceEventType } from "../../webhooks/event-types.ts";
import { enqueueDelivery, publishWorkspaceEvent } from "../../webhooks/outbox.ts";
import { newWebhookSecret } from "../../webhooks/signing.ts";
import * as repo from "./repo.ts";

/** After a rotation the previous secret keeps signing this long, so receivers can switch over. */
export const SECRET_OVERLAP_MS = DAY;


export function createEndpoint(ctx: AppContext, workspaceId: string, input: { url: string; events: WorkspaceEventType[]; description?: string }) {
  const url = checkOutboundUrlField(ctx, "url", input.url);
  const secret = newWebhookSecret();
  const now = ctx.clock.now();
  const row: repo.EndpointRow = {
    id: newId("whe"),
    workspaceId,
    url,
    description: input.description ?? null,
    eventTypes: input.events,
    secret: seal(ctx.keys.encryption, secret),
    previousSecret: null,
    previousSecretExpiresAt: null,
    status: "enabled",
    disabledReason: null,
    failingSince: null,
    consecutiveFailures: 0,
    breakerOpenUntil: null,
    createdAt: now,
    updatedAt: now,
  };
  ctx.db.insert(webhookEndpoints).values(row).run();
  return { row, secret };
}

export function getEndpoint(ctx: AppContext, workspaceId: string, id: string): repo.EndpointRow {
  const row = repo.findEndpoint(ctx.db, workspaceId, id);
  if (!row) throw notFound("webhook endpoint");
  return row;
}

export function updateEndpoint(
  ctx: AppContext,
  workspaceId: string,
  id: string,
  input: { url?: string; events?: WorkspaceEventType[]; description?: string | null; status?: "enabled" | "disabled" },
): repo.EndpointRow {
  const current = getEndpoint(ctx, workspaceId, id);
  const changes: Partial<repo.EndpointRow> = { updatedAt: ctx.clock.now() };
  if (input.url !== undefined) changes.url = checkOutboundUrlField(ctx, "url", input.url);
  if (input.events !== undefined) changes.eventTypes = input.events;
  if (input.description !== undefined) changes.description = input.description;
  if (input.status === "disabled" && current.status === "enabled") Object.assign(changes, { status: "disabled", disabledReason: "disabled by a user" });
  if (input.status === "enabled" && current.status === "disabled") {
    // A fresh start: the history that disabled it no longer counts against it.
    Object.assign(changes, { status: "enabled", disabledReason: null, consecutiveFailures: 0, failingSince: null, breakerOpenUntil: null });
  }
  ctx.db.update(webhookEndpoints).set(changes).where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id))).run();
  return getEndpoint(ctx, workspaceId, id);
}

/** Pending deliveries to it are discarded (with the reason) when their turn comes. */
export function deleteEndpoint(ctx: AppContext, workspaceId: string, id: string): void {
  getEndpoint(ctx, workspaceId, id);
  ctx.db.delete(webhookEndpoints).where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id))).run();
}

export function rotateEndpointSecret(ctx: AppContext, workspaceId: string, id: string) {
  const current = getEndpoint(ctx, workspaceId, id);
  const secret = newWebhookSecret();
  const now = ctx.clock.now();
  ctx.db
    .update(webhookEndpoints)
    .set({ secret: seal(ctx.keys.encryption, secret), previousSecret: current.secret, previousSecretExpiresAt: now + SECRET_OVERLAP_MS, updatedAt: now })
    .where(and(eq(webhookEndpoints.workspaceId, workspaceId), eq(webhookEndpoints.id, id)))
    .run();
  return { row: getEndpoint(ctx, workspaceId, id), secret };
}

/** Sends a signed `webhook.test` event through the real queue and waits briefly for its first attempt. */
export async function sendEndpointTest(ctx: AppContext, workspaceId: string, id: string) {
  const endpoint = getEndpoint(ctx, workspaceId, id);
  if (endpoint.status === "disabled") throw new ApiError("invalid_state", "the endpoint is disabled; enable it first");
  const published = publishWorkspaceEvent(ctx, {
    workspaceId,
    type: TEST_EVENT_TYPE,
    data: { message: `Test event from ${ctx.brand.name}`, destination_id: id },
    onlyEndpointId: id,
  });
  return awaitFirstAttempt(ctx, workspaceId, published.eventId, published.deliveryIds[0]);
}

export async function awaitFirstAttempt(ctx: AppContext, workspaceId: string, eventId: string, deliveryId: string) {
  const deadline = Date.now() + ctx.config.webhookTimeoutMs + 2000;
  for (;;) {
    const attempt = repo.firstAttemptOf(ctx.db, deliveryId);
    if (attempt || Date.now() > deadline) {
      const found = repo.findDelivery(ctx.db, workspaceId, deliveryId)!;
      return { eventId, delivery: found.delivery, eventType: found.eventType, attempt: attempt ?? null };
    }
    await Bun.sleep(25);
  }
}

/** A dead letter goes back to the queue with its original event id and a fresh schedule. */
export function replayDeadLetter(ctx: AppContext, workspaceId: string, deliveryId: string) {
  const found = repo.findDelivery(ctx.db, workspaceId, deliveryId);
  if (!found) throw notFound("dead letter");
  if (found.delivery.state !== "failed") throw new ApiError("invalid_state", `only failed deliveries can be replayed; this one is ${found.delivery.state}`);
  const now = ctx.clock.now();
  ctx.sqlite.transaction(() => {
    ctx.db
      .update(webhookDeliveries)
      .set({ state: "pending", attempts: 0, firstAttemptAt: null, nextAttemptAt: now, failedAt: null, updatedAt: now })
      .where(eq(webhookDeliveries.id, deliveryId))
      .run();
    enqueueDelivery(ctx, workspaceId, deliveryId, now);
  })();
  return repo.findDelivery(ctx.db, workspaceId, deliveryId)!;
}
