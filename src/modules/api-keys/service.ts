import type { AppContext } from "../../core/context.ts";
import { invalid, notFound } from "../../http/errors.ts";
import type { Scope } from "../../http/permissions.ts";
import { sha256Hex } from "../../lib/crypto.ts";
import { newId } from "../../lib/ids.ts";
import { randomBase62 } from "../../lib/random.ts";
import { findApiKey, insertApiKey, renameApiKey, revokeApiKey, type ApiKeyRow } from "./repo.ts";
import { lastUsedAt } from "../../http/key-usage.ts";
import { forgetCredentials } from "../../http/credential-cache.ts";

/** Secret length in base62 characters: 40 × log2(62) ≈ 238 bits. */
const SECRET_LENGTH = 40;

export function keyPrefix(brandSlug: string, mode: "live" | "test"): string {
  return `sk_${brandSlug}_${mode}_`;
}

/**
 * Creates a key; the full secret exists only in the return value, the database keeps its hash.
 * `brandSlug` names it (a reseller's, on its domain); keys are found by hash, so any prefix authenticates.
 */
export function createApiKey(
  ctx: AppContext,
  workspaceId: string,
  input: { name: string; scope: Scope; mode?: "live" | "test" },
  createdBy: string | null,
  brandSlug = ctx.brand.slug,
): { row: ApiKeyRow; secret: string } {
  if (!input.name.trim()) throw invalid("name", "must not be blank");
  const mode = input.mode ?? "live";
  const prefix = keyPrefix(brandSlug, mode);
  const secret = prefix + randomBase62(SECRET_LENGTH);
  const now = ctx.clock.now();
  const row: ApiKeyRow = {
    id: newId("key"),
    workspaceId,
    name: input.name.trim(),
    scope: input.scope,
    mode,
    prefix,
    lastFour: secret.slice(-4),
    secretHash: sha256Hex(secret),
    createdBy,
    createdAt: now,
    updatedAt: now,
    lastUsedAt: null,
    revokedAt: null,
  };
  insertApiKey(ctx.db, row);
  return { row, secret };
}

export function getApiKey(ctx: AppContext, workspaceId: string, id: string): ApiKeyRow {
  const row = findApiKey(ctx.db, workspaceId, id);
  if (!row) throw notFound("API key");
  return withPendingUse(ctx, row);
}

/** last_used_at is written behind; show the caller the current value without forcing a write. */
export function withPendingUse(ctx: AppContext, row: ApiKeyRow): ApiKeyRow {
  return { ...row, lastUsedAt: lastUsedAt(ctx, row.id, row.lastUsedAt) };
}

export function renameKey(ctx: AppContext, workspaceId: string, id: string, name: string): ApiKeyRow {
  if (!name.trim()) throw invalid("name", "must not be blank");
  if (!renameApiKey(ctx.db, workspaceId, id, name.trim(), ctx.clock.now())) throw notFound("API key");
  forgetCredentials(ctx);
  return getApiKey(ctx, workspaceId, id);
}

/** Revocation is immediate: resolved keys are forgotten, so the next request looks the key up and fails (on other nodes within a second: credential-cache.ts). */
export function revokeKey(ctx: AppContext, workspaceId: string, id: string): void {
  if (!revokeApiKey(ctx.db, workspaceId, id, ctx.clock.now())) throw notFound("API key");
  forgetCredentials(ctx);
}
