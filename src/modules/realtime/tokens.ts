import { and, eq, isNull, lt, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { realtimeTokens } from "../../db/schema/index.ts";
import { ApiError } from "../../http/errors.ts";
import { hashOpaqueToken, newOpaqueToken } from "../../lib/opaque-token.ts";
import { DAY } from "../../lib/time.ts";

/** Seconds a token may wait for its socket unless the request asks for another time. */
export const DEFAULT_TOKEN_TTL_S = 60;

export interface TokenRequest {
  agentId: string;
  variables?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** A widget visitor's token: the call's metadata names the widget. */
  widgetId?: string;
  expiresInS?: number;
}

export interface IssuedToken {
  token: string;
  expires_in: number;
  url: string;
}

export type RedeemedToken = typeof realtimeTokens.$inferSelect;

/** The WebSocket URL of the session endpoint at this instance's public address. */
export function sessionUrl(publicUrl: string, token: string): string {
  const base = publicUrl.replace(/\/+$/, "").replace(/^http/, "ws");
  return `${base}/v1/realtime/session?token=${encodeURIComponent(token)}`;
}

/**
 * A single-use, short-lived token for one browser voice session, bound to the workspace and agent.
 * Only its hash is kept, so the table never holds a usable secret. The caller has checked the agent.
 */
export function issueToken(ctx: AppContext, workspaceId: string, request: TokenRequest): IssuedToken {
  const now = ctx.clock.now();
  const ttl = request.expiresInS ?? DEFAULT_TOKEN_TTL_S;
  const { token, hash } = newOpaqueToken();
  ctx.db
    .insert(realtimeTokens)
    .values({
      hash,
      workspaceId,
      agentId: request.agentId,
      widgetId: request.widgetId ?? null,
      variables: request.variables ?? {},
      metadata: { ...(request.metadata ?? {}), ...(request.widgetId ? { widget_id: request.widgetId } : {}) },
      createdAt: now,
      expiresAt: now + ttl * 1000,
      usedAt: null,
      callId: null,
    })
    .run();
  return { token, expires_in: ttl, url: sessionUrl(ctx.publicUrl, token) };
}

/**
 * Spends a token: exactly one socket gets it, even when two race (the update is the claim).
 * Unknown (another instance's, mistyped), used and expired tokens are 401s saying which.
 */
export function redeemToken(ctx: AppContext, token: string | undefined): RedeemedToken {
  if (!token) throw new ApiError("unauthorized", "the session needs ?token= from POST /v1/realtime/token");
  const hash = hashOpaqueToken(token);
  const now = ctx.clock.now();
  const claimed = ctx.db
    .update(realtimeTokens)
    .set({ usedAt: now })
    .where(and(eq(realtimeTokens.hash, hash), isNull(realtimeTokens.usedAt), sql`${realtimeTokens.expiresAt} > ${now}`))
    .returning()
    .get();
  if (claimed) return claimed;
  const row = ctx.db.select().from(realtimeTokens).where(eq(realtimeTokens.hash, hash)).get();
  if (!row) throw new ApiError("unauthorized", "unknown session token");
  if (row.usedAt !== null) throw new ApiError("unauthorized", "this session token was already used; ask for a new one");
  throw new ApiError("token_expired", "the session token expired before the socket opened; ask for a new one");
}

/** Redeemed or expired tokens are kept a day (support can tell "used" from "unknown"), then go (a periodic sweep). */
export function pruneTokens(ctx: AppContext): number {
  return ctx.db.delete(realtimeTokens).where(lt(realtimeTokens.expiresAt, ctx.clock.now() - DAY)).run().changes;
}

/** The call a token opened, for support and the token's own record. */
export function noteTokenCall(ctx: AppContext, hash: string, callId: string): void {
  ctx.db.update(realtimeTokens).set({ callId }).where(eq(realtimeTokens.hash, hash)).run();
}
