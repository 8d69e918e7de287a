import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { agentWebhooks } from "../../db/schema/index.ts";
import { seal } from "../../lib/sealed.ts";
import { newWebhookSecret } from "../../webhooks/signing.ts";
import { SECRET_OVERLAP_MS } from "./service.ts";

/** The lifecycle channel of a new agent: its signing secret (returned once) and where events go. */
export function createAgentWebhook(ctx: AppContext, workspaceId: string, agentId: string, url: string | null, events: string[]): string {
  const secret = newWebhookSecret();
  ctx.db
    .insert(agentWebhooks)
    .values({ agentId, workspaceId, url, eventTypes: events, secret: seal(ctx.keys.encryption, secret), updatedAt: ctx.clock.now() })
    .run();
  return secret;
}

export function updateAgentWebhook(ctx: AppContext, workspaceId: string, agentId: string, url: string | null, events: string[]): void {
  ctx.db
    .update(agentWebhooks)
    .set({ url, eventTypes: events, updatedAt: ctx.clock.now() })
    .where(and(eq(agentWebhooks.agentId, agentId), eq(agentWebhooks.workspaceId, workspaceId)))
    .run();
}

/** New secret; the old one keeps signing for 24 h so the receiver can switch over. */
export function rotateAgentWebhookSecret(ctx: AppContext, workspaceId: string, agentId: string): string {
  const where = and(eq(agentWebhooks.agentId, agentId), eq(agentWebhooks.workspaceId, workspaceId));
  const current = ctx.db.select().from(agentWebhooks).where(where).get()!;
  const secret = newWebhookSecret();
  const now = ctx.clock.now();
  ctx.db
    .update(agentWebhooks)
    .set({ secret: seal(ctx.keys.encryption, secret), previousSecret: current.secret, previousSecretExpiresAt: now + SECRET_OVERLAP_MS, updatedAt: now })
    .where(where)
    .run();
  return secret;
}

/** Pending lifecycle deliveries of a deleted agent are then discarded with the reason. */
export function deleteAgentWebhook(ctx: AppContext, workspaceId: string, agentId: string): void {
  ctx.db.delete(agentWebhooks).where(and(eq(agentWebhooks.agentId, agentId), eq(agentWebhooks.workspaceId, workspaceId))).run();
}
