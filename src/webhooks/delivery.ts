import { and, eq, lte, or, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { VERSION } from "../core/version.ts";
import { webhookDeliveries, webhookEndpoints } from "../db/schema/index.ts";
import { deliveryById, endpointHealthy, eventBody, insertAttempt, recordDeliveryOutcome } from "./statements.ts";
import { newTimeOrderedId } from "../lib/ids.ts";
import { DAY, HOUR, MINUTE, SECOND, toIso } from "../lib/time.ts";
import { JobRetryLater, JobSnooze } from "../jobs/outcomes.ts";
import type { RunningJob } from "../jobs/runner.ts";
import { OutboundRefused, OutboundTimeout, sendOutbound } from "../net/outbound.ts";
import { countDelivery } from "./metrics.ts";
import { nextAttemptAt } from "./retry-policy.ts";
import { signWebhook } from "./signing.ts";
import { resolveTarget, type EndpointRow } from "./targets.ts";

export const RESPONSE_LIMIT_BYTES = 64 * 1024;
const EXCERPT_BYTES = 1024;
/** Consecutive failures that open an endpoint's circuit breaker. */
export const BREAKER_THRESHOLD = 5;
const BREAKER_MAX_COOLDOWN_MS = HOUR;
/** While a half-open probe is in flight, the others wait this long. */
const PROBE_WINDOW_MS = 15 * SECOND;
export const DISABLE_AFTER_MS = 5 * DAY;

type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type AttemptResult = { statusCode: number | null; error: string | null; durationMs: number; excerpt: string | null; retryAfterMs: number | null };
type Verdict = "delivered" | "rejected" | "retry";

/** The `webhooks.deliver` job: one HTTP attempt for one delivery, and what follows from its answer. */
export async function deliverWebhook(ctx: AppContext, job: RunningJob<{ delivery_id: string }>): Promise<void> {
  const delivery = deliveryById(ctx.db).get({ id: job.payload.delivery_id });
  if (!delivery || delivery.state !== "pending") return; // already settled: retries of this job are harmless
  const event = eventBody(ctx.db).get({ id: delivery.eventId });
  const target = resolveTarget(ctx, delivery);
  const now = ctx.clock.now();
  if (!event || target.kind === "gone") {
    settle(ctx, delivery.id, { state: "discarded", discardedReason: event ? (target as { reason: string }).reason : "the event no longer exists" });
    countDelivery(ctx, "discarded");
    return;
  }
  if (target.kind === "endpoint") {
    if (target.endpoint.status === "disabled") {
      settle(ctx, delivery.id, { state: "failed", failedAt: now, lastError: `endpoint disabled: ${target.endpoint.disabledReason ?? "by a user"}` });
      countDelivery(ctx, "failed");
      return;
    }
    const waitUntil = breakerWait(ctx, target.endpoint, now);
    if (waitUntil !== null) {
      ctx.db.update(webhookDeliveries).set({ nextAttemptAt: waitUntil, updatedAt: now }).where(eq(webhookDeliveries.id, delivery.id)).run();
      throw new JobSnooze(waitUntil, "circuit breaker open");
    }
  }

  const attempt = delivery.attempts + 1;
  const result = await attemptOnce(ctx, target.url, event.id, event.body, target.secrets, job.signal);
  const verdict = classify(result);
  const after = ctx.clock.now();
  const firstAttemptAt = delivery.firstAttemptAt ?? now;
  const retryAt = verdict === "retry" ? nextAttemptAt(attempt, firstAttemptAt, after, result.retryAfterMs) : null;

  // Deliveries finishing together share one commit; the job completes in it, with its outcome.
  await ctx.groupCommit.run(() => {
    insertAttempt(ctx.db).run({
      id: newTimeOrderedId("att", after),
      workspaceId: delivery.workspaceId,
      deliveryId: delivery.id,
      eventId: event.id,
      endpointId: delivery.endpointId,
      agentId: delivery.agentId,
      attempt,
      url: target.url,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      responseExcerpt: result.excerpt,
      error: result.error,
      createdAt: after,
    });
    const final = verdict === "delivered" || retryAt === null;
    recordDeliveryOutcome(ctx.db).run({
      id: delivery.id,
      state: verdict === "delivered" ? "delivered" : retryAt === null ? "failed" : "pending",
      attempts: attempt,
      firstAttemptAt,
      lastStatusCode: result.statusCode,
      lastError: result.error,
      deliveredAt: verdict === "delivered" ? after : null,
      failedAt: verdict !== "delivered" && retryAt === null ? after : null,
      nextAttemptAt: final ? null : retryAt,
      updatedAt: after,
    });
    if (target.kind === "endpoint") recordEndpointHealth(ctx, target.endpoint, verdict, after);
    if (final) job.complete();
  });
  countDelivery(ctx, verdict === "delivered" ? "delivered" : retryAt === null ? "failed" : "retried");

  if (retryAt !== null) throw new JobRetryLater(result.error ?? `HTTP ${result.statusCode}`, retryAt);
}

async function attemptOnce(ctx: AppContext, url: string, eventId: string, body: string, secrets: string[], signal: AbortSignal): Promise<AttemptResult> {
  const headers = {
    "content-type": "application/json",
    "user-agent": `${ctx.brand.name}-Webhooks/${VERSION}`,
    ...signWebhook({ eventId, body, timestampSeconds: Math.floor(ctx.clock.now() / 1000), secrets, brandName: ctx.brand.name }),
  };
  const started = performance.now();
  try {
    const response = await sendOutbound(
      url,
      { method: "POST", headers, body, timeoutMs: ctx.config.webhookTimeoutMs, maxResponseBytes: RESPONSE_LIMIT_BYTES, signal },
      { allowPrivate: ctx.config.allowPrivateUrls },
    );
    const excerpt = new TextDecoder().decode(response.body.subarray(0, EXCERPT_BYTES));
    return { statusCode: response.status, error: null, durationMs: response.durationMs, excerpt: excerpt || null, retryAfterMs: retryAfter(response.headers.get("retry-after"), ctx.clock.now()) };
  } catch (error) {
    const kind = error instanceof OutboundTimeout ? "timeout" : error instanceof OutboundRefused ? "refused" : "connection error";
    return { statusCode: null, error: `${kind}: ${(error as Error).message}`, durationMs: Math.round(performance.now() - started), excerpt: null, retryAfterMs: null };
  }
}

/** 2xx acknowledges; 4xx is final except 408 and 429; everything else (5xx, time-out, network) retries. */
function classify(result: AttemptResult): Verdict {
  const code = result.statusCode;
  if (code === null) return result.error?.startsWith("refused") ? "rejected" : "retry";
  if (code >= 200 && code < 300) return "delivered";
  if (code >= 400 && code < 500 && code !== 408 && code !== 429) return "rejected";
  return "retry";
}

function retryAfter(header: string | null, now: number): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header) * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * Null when the endpoint may be tried now. While the breaker is open, the time to try again; once it
 * has cooled down, exactly one delivery (the one that wins this update) goes ahead as the probe.
 */
function breakerWait(ctx: AppContext, endpoint: EndpointRow, now: number): number | null {
  if (endpoint.consecutiveFailures < BREAKER_THRESHOLD) return null;
  if (endpoint.breakerOpenUntil !== null && endpoint.breakerOpenUntil > now) return endpoint.breakerOpenUntil;
  const probe = ctx.db
    .update(webhookEndpoints)
    .set({ breakerOpenUntil: now + PROBE_WINDOW_MS })
    .where(and(eq(webhookEndpoints.id, endpoint.id), or(isNull(webhookEndpoints.breakerOpenUntil), lte(webhookEndpoints.breakerOpenUntil, now))))
    .run().changes;
  return probe === 1 ? null : now + PROBE_WINDOW_MS;
}

/** Success closes the breaker; a retryable failure counts towards opening it and towards disabling. */
function recordEndpointHealth(ctx: AppContext, seen: EndpointRow, verdict: Verdict, now: number): void {
  const endpointId = seen.id;
  if (verdict === "delivered") {
    endpointHealthy(ctx.db).run({ id: endpointId }); // a no-op while it is healthy already
    return;
  }
  if (verdict !== "retry") return; // the receiver answered and refused: that is not an outage
  // Counted by the statement itself, not read and written back: deliveries in other processes (nodes on
  // one PostgreSQL database) count the same endpoint's failures at the same time.
  const counted = ctx.db
    .update(webhookEndpoints)
    .set({ consecutiveFailures: sql`${webhookEndpoints.consecutiveFailures} + 1`, failingSince: sql`coalesce(${webhookEndpoints.failingSince}, ${now})` })
    .where(eq(webhookEndpoints.id, endpointId))
    .returning({ failures: webhookEndpoints.consecutiveFailures, failingSince: webhookEndpoints.failingSince, workspaceId: webhookEndpoints.workspaceId })
    .get();
  if (!counted) return;
  const { failures, workspaceId } = counted;
  const failingSince = counted.failingSince ?? now; // the statement set it if it was unset
  if (now - failingSince >= DISABLE_AFTER_MS) {
    ctx.db
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: `failed continuously since ${toIso(failingSince)}`, updatedAt: now })
      .where(eq(webhookEndpoints.id, endpointId))
      .run();
    ctx.logger.warn("webhook endpoint disabled after failing for 5 days", { endpoint_id: endpointId, workspace_id: workspaceId });
    return;
  }
  if (failures < BREAKER_THRESHOLD) return;
  const cooldown = Math.min(MINUTE * 2 ** (failures - BREAKER_THRESHOLD), BREAKER_MAX_COOLDOWN_MS);
  ctx.db.update(webhookEndpoints).set({ breakerOpenUntil: now + cooldown }).where(eq(webhookEndpoints.id, endpointId)).run();
}

function settle(ctx: AppContext, deliveryId: string, changes: Partial<DeliveryRow>): void {
  ctx.db.update(webhookDeliveries).set({ ...changes, nextAttemptAt: null, updatedAt: ctx.clock.now() }).where(eq(webhookDeliveries.id, deliveryId)).run();
}
