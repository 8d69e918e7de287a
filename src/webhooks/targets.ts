import { and, eq } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { agentWebhooks, webhookEndpoints } from "../db/schema/index.ts";
import { endpointById } from "./statements.ts";
import { unsealMemo } from "../lib/sealed.ts";

export type EndpointRow = typeof webhookEndpoints.$inferSelect;

export type Target =
  | { kind: "endpoint"; url: string; secrets: string[]; endpoint: EndpointRow }
  | { kind: "agent"; url: string; secrets: string[] }
  | { kind: "gone"; reason: string };

/** Where a delivery goes now (URLs and secrets may have changed since the event was recorded). */
export function resolveTarget(ctx: AppContext, delivery: { workspaceId: string; endpointId: string | null; agentId: string | null }): Target {
  const now = ctx.clock.now();
  if (delivery.endpointId) {
    const endpoint = endpointById(ctx.db).get({ id: delivery.endpointId, workspaceId: delivery.workspaceId });
    if (!endpoint) return { kind: "gone", reason: "the webhook endpoint was deleted" };
    return { kind: "endpoint", url: endpoint.url, secrets: signingSecrets(ctx, endpoint, now), endpoint };
  }
  const hook = delivery.agentId
    ? ctx.db.select().from(agentWebhooks).where(and(eq(agentWebhooks.agentId, delivery.agentId), eq(agentWebhooks.workspaceId, delivery.workspaceId))).get()
    : undefined;
  if (!hook) return { kind: "gone", reason: "the agent was deleted" };
  if (!hook.url) return { kind: "gone", reason: "the agent no longer has a webhook_url" };
  return { kind: "agent", url: hook.url, secrets: signingSecrets(ctx, hook, now) };
}

/** The current secret, then the previous one while its rotation overlap lasts. */
export function signingSecrets(ctx: AppContext, row: { secret: string; previousSecret: string | null; previousSecretExpiresAt: number | null }, now: number): string[] {
  const secrets = [unsealMemo(ctx.keys.encryption, row.secret)];
  if (row.previousSecret && (row.previousSecretExpiresAt ?? 0) > now) secrets.push(unsealMemo(ctx.keys.encryption, row.previousSecret));
  return secrets;
}
