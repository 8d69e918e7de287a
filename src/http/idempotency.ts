import { and, eq, isNull } from "drizzle-orm";
import { Elysia, ElysiaCustomStatusResponse } from "elysia";
import type { AppContext } from "../core/context.ts";
import { idempotencyKeys } from "../db/schema/index.ts";
import { databaseRefusal } from "../db/refusals.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { seal, unseal } from "../lib/sealed.ts";
import { DAY, MINUTE } from "../lib/time.ts";
import { StreamedBody } from "./body-parser.ts";
import { ApiError } from "./errors.ts";
import { findRequestMeta, requestMeta, type RequestMeta } from "./request-meta.ts";

export const IDEMPOTENCY_HEADER = "idempotency-key";
/** Routes between the nodes of a cluster (never documented, never a client's). */
export const INTERNAL_PREFIX = "/internal/";
const RETENTION_MS = DAY;
/** A claim older than this belongs to a request that died; let the retry take it over. */
const ABANDONED_AFTER_MS = MINUTE;
/** A claim still running is renewed this often, so no other node takes a slow request (an upload) for dead. */
const RENEW_EVERY_MS = ABANDONED_AFTER_MS / 3;
/** Past this a request is not vouched for any more, whatever happened to it (a leak must not hold a key for a day). */
const RENEWED_AT_MOST_MS = 10 * MINUTE;

/** This process's claims whose requests are still running, by scope and key. */
interface Running {
  claims: Map<string, { scope: string; key: string; claimedAt: number; since: number }>;
  timer: ReturnType<typeof setInterval> | null;
}
const running = new WeakMap<AppContext, Running>();

/**
 * `Idempotency-Key` on POST: the first response (2xx or 4xx) is stored, encrypted, for 24 h and
 * replayed to the same credential repeating the same body; the same key with a different body is
 * 409. 5xx answers are not stored, so the client's retry really runs again.
 */
export function idempotency(ctx: AppContext) {
  return new Elysia({ name: "parley.idempotency" })
    .onBeforeHandle({ as: "global" }, ({ request, body, route }) => {
      // A node's forwarded control is not a client's request: the client's own key was honoured where it came in.
      if (request.method !== "POST" || route.startsWith(INTERNAL_PREFIX)) return;
      const key = request.headers.get(IDEMPOTENCY_HEADER);
      if (key === null) return;
      if (!/^[\x21-\x7e]{1,255}$/.test(key)) throw new ApiError("bad_request", "Idempotency-Key must be 1-255 visible ASCII characters");
      const meta = requestMeta(request);
      const claim = (bodyText: string) => claimKey(ctx, meta, key, sha256Hex(`${request.method} ${route} ${new URL(request.url).pathname} ${bodyText}`));
      // A streamed upload is not read yet: its type and length stand in for its bytes.
      if (body instanceof StreamedBody) return claim(`stream ${body.type} ${request.headers.get("content-length")}`);
      // A multipart form's files count by their bytes (JSON would write each as `{}`).
      if (hasFiles(body)) return formFingerprint(body as Record<string, unknown>).then(claim);
      return claim(JSON.stringify(body ?? null));
    })
    .onAfterHandle({ as: "global" }, ({ request, responseValue, set }) => {
      const meta = findRequestMeta(request);
      if (!meta?.idempotency) return;
      const { status, body, contentType } = serialise(responseValue, set.status);
      settleIdempotency(ctx, meta, status, body, contentType);
    });
}

/**
 * Replays the stored answer, refuses a reused or busy key, or claims the key for this request. Taking
 * a key is one conditional statement (an insert that yields to an existing row; a takeover that holds
 * only while the row is still the claim read), so of two requests racing for it on two nodes, one
 * takes it and the other is answered from the row (replayed, or 409 while in flight).
 */
function claimKey(ctx: AppContext, meta: RequestMeta, key: string, requestHash: string): Response | undefined {
  const scope = scopeOf(meta);
  const now = ctx.clock.now();
  const row = { requestHash, status: null, responseBody: null, createdAt: now, expiresAt: now + RETENTION_MS };
  const sameKey = and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key));
  for (let attempt = 0; attempt < 3; attempt++) {
    const inserted = ctx.db.insert(idempotencyKeys).values({ scope, key, ...row }).onConflictDoNothing({ target: [idempotencyKeys.scope, idempotencyKeys.key] }).run();
    if (inserted.changes > 0) return claimed(ctx, meta, scope, key, now);
    const existing = ctx.db.select().from(idempotencyKeys).where(sameKey).get();
    if (!existing) continue; // freed by a 5xx since the insert
    if (existing.expiresAt > now) {
      if (existing.requestHash !== requestHash) {
        throw new ApiError("idempotency_key_reused", "this Idempotency-Key was used with a different request; use a new key");
      }
      if (existing.status !== null) {
        meta.status = existing.status;
        return new Response(existing.responseBody ? unseal(ctx.keys.encryption, existing.responseBody) : null, {
          status: existing.status,
          headers: { ...meta.headers, "content-type": existing.contentType ?? "application/json", "idempotent-replayed": "true" },
        });
      }
      // Renewed lately by the node running it, or running here (up to the time a request is vouched for).
      const here = running.get(ctx)?.claims.get(runningKey(scope, key));
      if (now - existing.createdAt < ABANDONED_AFTER_MS || (here && now - here.since < RENEWED_AT_MOST_MS)) {
        throw new ApiError("idempotency_in_progress", "a request with this Idempotency-Key is still being processed; retry shortly");
      }
    }
    // Expired, or abandoned by a request that died: taken over only if no other request took it since it was read.
    const takenOver = ctx.db.update(idempotencyKeys).set(row).where(and(sameKey, eq(idempotencyKeys.createdAt, existing.createdAt))).run();
    if (takenOver.changes > 0) return claimed(ctx, meta, scope, key, now);
  }
  throw new ApiError("idempotency_in_progress", "a request with this Idempotency-Key is still being processed; retry shortly");
}

function claimed(ctx: AppContext, meta: RequestMeta, scope: string, key: string, claimedAt: number): undefined {
  meta.idempotency = { scope, key };
  let state = running.get(ctx);
  if (!state) running.set(ctx, (state = { claims: new Map(), timer: null }));
  state.claims.set(runningKey(scope, key), { scope, key, claimedAt, since: claimedAt });
  // Only other nodes read the row's age to take a claim over: one process (SQLite) has nothing to renew.
  if (!state.timer && ctx.dialect === "postgres") {
    state.timer = setInterval(() => {
      try {
        renewRunningClaims(ctx);
      } catch (error) {
        ctx.logger.warn("could not renew the claims of running idempotent requests", { error });
      }
    }, RENEW_EVERY_MS);
    state.timer.unref();
  }
  return undefined;
}

function released(ctx: AppContext, scope: string, key: string): void {
  const state = running.get(ctx);
  if (!state) return;
  state.claims.delete(runningKey(scope, key));
  stopWhenIdle(state);
}

function stopWhenIdle(state: Running): void {
  if (state.claims.size === 0 && state.timer) {
    clearInterval(state.timer);
    state.timer = null;
  }
}

const runningKey = (scope: string, key: string) => `${scope}\n${key}`;

/**
 * Moves the claims of this process's requests still running forward (each statement conditional on the
 * claim being the one this request made), so another node reads them as alive; returns how many.
 */
export function renewRunningClaims(ctx: AppContext): number {
  const state = running.get(ctx);
  if (!state) return 0;
  const now = ctx.clock.now();
  let renewed = 0;
  for (const [id, claim] of state.claims) {
    if (now - claim.claimedAt < RENEW_EVERY_MS) continue;
    const mine = and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.key, claim.key), eq(idempotencyKeys.createdAt, claim.claimedAt), isNull(idempotencyKeys.status));
    let changes = 0;
    try {
      if (now - claim.since < RENEWED_AT_MOST_MS) changes = ctx.db.update(idempotencyKeys).set({ createdAt: now }).where(mine).run().changes;
    } catch (error) {
      if (!databaseRefusal(error)) throw error;
      continue; // the next round tries again
    }
    if (changes > 0) {
      claim.claimedAt = now;
      renewed++;
    } else state.claims.delete(id); // settled, taken over, or past vouching for
  }
  stopWhenIdle(state);
  return renewed;
}

function hasFiles(body: unknown): boolean {
  return !!body && typeof body === "object" && Object.values(body).some((value) => value instanceof Blob || (Array.isArray(value) && value.some((v) => v instanceof Blob)));
}

async function formFingerprint(form: Record<string, unknown>): Promise<string> {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(form).sort(([a], [b]) => a.localeCompare(b))) {
    for (const item of Array.isArray(value) ? value : [value]) {
      parts.push(item instanceof Blob ? `${name}=file:${item.type}:${item.size}:${sha256Hex(new Uint8Array(await item.arrayBuffer()))}` : `${name}=${JSON.stringify(item)}`);
    }
  }
  return `form ${parts.join("&")}`;
}

/** Stores the final answer (or frees the key after a 5xx). Called by the success path and the error handler. */
export function settleIdempotency(ctx: AppContext, meta: RequestMeta, status: number, body: string, contentType: string): void {
  const claim = meta.idempotency;
  if (!claim) return;
  meta.idempotency = undefined;
  released(ctx, claim.scope, claim.key);
  const where = and(eq(idempotencyKeys.scope, claim.scope), eq(idempotencyKeys.key, claim.key));
  if (status >= 500) {
    ctx.db.delete(idempotencyKeys).where(where).run();
    return;
  }
  // Sealed: a replayed answer may hold a secret shown once (a new API key's `key`).
  ctx.db.update(idempotencyKeys).set({ status, responseBody: body ? seal(ctx.keys.encryption, body) : null, contentType }).where(where).run();
}

function scopeOf(meta: RequestMeta): string {
  if (meta.principal) return `${meta.principal.workspaceId}:${meta.principal.apiKeyId ?? meta.principal.userId}`;
  if (meta.session) return `user:${meta.session.userId}`;
  return `ip:${meta.ip}`;
}

function serialise(value: unknown, setStatus: number | string | undefined): { status: number; body: string; contentType: string } {
  if (value instanceof ElysiaCustomStatusResponse) {
    return { status: value.code, body: JSON.stringify(value.response ?? null), contentType: "application/json" };
  }
  if (value instanceof Response) return { status: value.status, body: "", contentType: value.headers.get("content-type") ?? "" };
  return { status: typeof setStatus === "number" ? setStatus : 200, body: JSON.stringify(value ?? null), contentType: "application/json" };
}
