import type { AppContext } from "../core/context.ts";
import type { apiKeys, workspaces } from "../db/schema/index.ts";

export type KeyRow = typeof apiKeys.$inferSelect;
export type WorkspaceRow = typeof workspaces.$inferSelect;

/** A live API key as the last lookup found it, with its workspace. */
export interface CachedKey {
  key: KeyRow;
  workspace: WorkspaceRow;
  loadedAt: number;
}

/**
 * Every request with an API key needs its key and workspace; reading them costs an SQLite read
 * transaction each (≈15 µs under load, more than the rest of a small request). Keys and workspaces
 * change only through the few writes that call forgetCredentials, so resolved keys are kept here.
 * Unknown secrets are never cached (a key created by the CLI works at once), and entries expire
 * after MAX_AGE_MS in case anything else ever edits the rows.
 */
const MAX_AGE_MS = 30_000;
/**
 * On PostgreSQL another node may revoke a key or edit a workspace, and only its own cache hears of it:
 * entries last a second, so a revocation holds on every node within one (a lookup per key, node and
 * second costs nothing next to the requests it saves).
 */
const CLUSTER_MAX_AGE_MS = 1_000;
const MAX_ENTRIES = 10_000;

interface Cache {
  bySecretHash: Map<string, CachedKey>;
  byKeyId: Map<string, CachedKey>;
  maxAgeMs: number;
}

const caches = new WeakMap<AppContext, Cache>();

function cacheOf(ctx: AppContext): Cache {
  let cache = caches.get(ctx);
  if (!cache) {
    cache = { bySecretHash: new Map(), byKeyId: new Map(), maxAgeMs: ctx.dialect === "postgres" ? CLUSTER_MAX_AGE_MS : MAX_AGE_MS };
    caches.set(ctx, cache);
  }
  return cache;
}

export function cachedKeyBySecretHash(ctx: AppContext, secretHash: string, now: number): CachedKey | undefined {
  const cache = cacheOf(ctx);
  const entry = cache.bySecretHash.get(secretHash);
  return entry && now - entry.loadedAt < cache.maxAgeMs ? entry : undefined;
}

/** The key (and workspace) a request was authenticated with, as resolved moments ago. */
export function cachedKeyById(ctx: AppContext, keyId: string, now: number): CachedKey | undefined {
  const cache = cacheOf(ctx);
  const entry = cache.byKeyId.get(keyId);
  return entry && now - entry.loadedAt < cache.maxAgeMs ? entry : undefined;
}

export function rememberKey(ctx: AppContext, entry: CachedKey): void {
  const cache = cacheOf(ctx);
  if (cache.bySecretHash.size >= MAX_ENTRIES) forgetCredentials(ctx);
  cache.bySecretHash.set(entry.key.secretHash, entry);
  cache.byKeyId.set(entry.key.id, entry);
}

/** Called by every write to an API key or a workspace (revoke, rename, settings): all entries go. */
export function forgetCredentials(ctx: AppContext): void {
  const cache = cacheOf(ctx);
  cache.bySecretHash.clear();
  cache.byKeyId.clear();
}
