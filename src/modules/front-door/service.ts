import type { AppContext } from "../../core/context.ts";
import { ApiError, invalid, type FieldError } from "../../http/errors.ts";
import { deriveKey, hmacSha256, safeEqual } from "../../lib/crypto.ts";
import { newId, newTimeOrderedId } from "../../lib/ids.ts";
import { hashOpaqueToken, newOpaqueToken } from "../../lib/opaque-token.ts";
import { DAY, parseIso, toIso } from "../../lib/time.ts";
import { FRONT_DOOR_LIMITS as LIMITS } from "./limits.ts";
import type { ClientEventInput, ClientEventRow, ContactInput, NewsletterRow, NewsletterSubscribeInput } from "./models.ts";
import * as repo from "./repo.ts";

/** Who sent a public request: the client address (hashed before anything keeps it) and user agent. */
export interface Visitor {
  ip: string;
  userAgent: string | null;
}

const visitorKeys = new WeakMap<AppContext, Uint8Array>();

/** A visitor's IP address, keyed-hashed: the caps can count visitors without the database keeping addresses. */
export function visitorOf(ctx: AppContext, ip: string): string {
  let key = visitorKeys.get(ctx);
  if (!key) visitorKeys.set(ctx, (key = deriveKey(ctx.keys.encryption, "front-door-visitors")));
  return hmacSha256(key, ip).toString("hex");
}

/**
 * The spam defences of every public form, before anything else is said about it: the honeypot must
 * be empty, and the form must have been on screen long enough for a person to fill it in.
 */
export function checkForm(ctx: AppContext, input: { form_started_at: number; website?: string }): void {
  if (input.website?.trim()) throw invalid("website", "must be left empty: the field is hidden from people, so only automated senders fill it in");
  const elapsed = ctx.clock.now() - input.form_started_at;
  // A page whose clock runs ahead of ours cannot be timed (an old timestamp would pass anyway); nonsense can.
  if (elapsed < -DAY) throw invalid("form_started_at", "is more than a day in the future: send Date.now() from when the page showed the form");
  if (elapsed >= 0 && elapsed < LIMITS.minFormMs) {
    throw invalid("form_started_at", `the form was sent ${elapsed} ms after it was shown; a person takes at least ${LIMITS.minFormMs / 1000} s`);
  }
}

/** 429 once `times` (oldest first, within the window) hold `limit` entries; Retry-After is when the oldest counted leaves. */
export function checkCap(times: number[], limit: number, windowMs: number, now: number, describe: (retryAfter: number) => string): void {
  if (times.length < limit) return;
  const oldest = times[times.length - limit]!;
  const retryAfter = Math.max(1, Math.ceil((oldest + windowMs - now) / 1000));
  throw new ApiError("rate_limited", describe(retryAfter), { headers: { "retry-after": String(retryAfter) } });
}

function failIf(errors: FieldError[]): void {
  if (errors.length) throw new ApiError("validation_failed", errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });
}

/** Where links people must open point: the dashboard (or, without one, this server). */
function linkBase(ctx: AppContext): string {
  return ctx.config.dashboardUrl || ctx.publicUrl;
}

// ---- Contact form (152) ----

export function receiveContactMessage(ctx: AppContext, input: ContactInput, visitor: Visitor) {
  checkForm(ctx, input);
  const errors: FieldError[] = [];
  const name = input.name.trim();
  const message = input.message.trim();
  if (!name) errors.push({ field: "name", message: "must not be blank" });
  if (!message) errors.push({ field: "message", message: "must not be blank" });
  failIf(errors);
  const now = ctx.clock.now();
  const sender = visitorOf(ctx, visitor.ip);
  checkCap(
    repo.contactTimesSince(ctx.db, sender, now - LIMITS.contactWindowMs),
    LIMITS.contactsPerVisitor,
    LIMITS.contactWindowMs,
    now,
    (retryAfter) => `this address has sent ${LIMITS.contactsPerVisitor} contact messages within the hour, the most allowed; retry in ${retryAfter} s`,
  );
  const row = {
    id: newId("msg"),
    name,
    email: input.email.trim(),
    company: input.company?.trim() || null,
    message,
    visitor: sender,
    userAgent: visitor.userAgent,
    createdAt: now,
  };
  repo.insertContactMessage(ctx.db, row);
  ctx.logger.info("contact message received (no mail server configured; read it with GET /v1/admin/contact-messages)", { id: row.id, email: row.email });
  return { id: row.id, object: "contact_message" as const, created_at: toIso(now) };
}

// ---- Newsletter (153, with confirm and unsubscribe) ----

const unsubscribeKeys = new WeakMap<AppContext, Uint8Array>();

/** A subscription's unsubscribe token: its id, signed. Stable, so every newsletter can carry it; nothing to store. */
export function unsubscribeToken(ctx: AppContext, subscriptionId: string): string {
  let key = unsubscribeKeys.get(ctx);
  if (!key) unsubscribeKeys.set(ctx, (key = deriveKey(ctx.keys.encryption, "newsletter-unsubscribe")));
  return `${subscriptionId}.${hmacSha256(key, subscriptionId).toString("base64url")}`;
}

export function unsubscribeUrl(ctx: AppContext, row: NewsletterRow): string | null {
  return row.status === "confirmed" ? `${linkBase(ctx)}/newsletter/unsubscribe?token=${unsubscribeToken(ctx, row.id)}` : null;
}

/**
 * Double opt-in, answered the same whatever the address's state (nothing leaks): a new, pending or
 * unsubscribed address gets a fresh confirmation link (the newest link is the one that works); a
 * confirmed one is left alone.
 */
export function subscribeNewsletter(ctx: AppContext, input: NewsletterSubscribeInput, visitor: Visitor): void {
  checkForm(ctx, input);
  const email = input.email.trim().toLowerCase();
  const source = input.source?.trim() || null;
  const now = ctx.clock.now();
  const existing = repo.findSubscriptionByEmail(ctx.db, email);
  if (existing?.status === "confirmed") {
    ctx.logger.debug("newsletter sign-up for an address already confirmed: nothing sent", { id: existing.id });
    return;
  }
  const token = newOpaqueToken();
  if (existing) {
    repo.updateSubscription(ctx.db, existing.id, { status: "pending", tokenHash: token.hash, source: source ?? existing.source, updatedAt: now });
  } else {
    repo.insertSubscription(ctx.db, {
      id: newId("nls"),
      email,
      status: "pending",
      tokenHash: token.hash,
      source,
      visitor: visitorOf(ctx, visitor.ip),
      createdAt: now,
      updatedAt: now,
      confirmedAt: null,
    });
  }
  ctx.logger.info("newsletter sign-up (no mail server configured; send this confirmation link to the subscriber)", {
    email,
    link: `${linkBase(ctx)}/newsletter/confirm?token=${token.token}`,
  });
}

const stateOf = (row: NewsletterRow) => ({ object: "newsletter_subscription" as const, email: row.email, status: row.status });

/** The confirmation link's token: pending → confirmed. Opening the link again answers the same. */
export function confirmNewsletter(ctx: AppContext, token: string) {
  const now = ctx.clock.now();
  const row = repo.findSubscriptionByTokenHash(ctx.db, hashOpaqueToken(token));
  const expired = row?.status === "pending" && row.updatedAt + LIMITS.confirmationLifetimeMs <= now;
  if (!row || row.status === "unsubscribed" || expired) {
    throw invalid("token", "is unknown, no longer valid or expired (links last 7 days): sign up again for a new link");
  }
  if (row.status === "confirmed") return stateOf(row);
  repo.updateSubscription(ctx.db, row.id, { status: "confirmed", confirmedAt: now, updatedAt: now });
  return stateOf({ ...row, status: "confirmed" });
}

/** The unsubscribe link's token (signed subscription id); unsubscribing twice answers the same. */
export function unsubscribeNewsletter(ctx: AppContext, token: string) {
  const id = token.split(".")[0] ?? "";
  const row = safeEqual(token, unsubscribeToken(ctx, id)) ? repo.findSubscription(ctx.db, id) : undefined;
  if (!row) throw invalid("token", "is not an unsubscribe token of this newsletter");
  if (row.status === "unsubscribed") return stateOf(row);
  // The confirmation token dies with it: signing up again starts a new double opt-in.
  repo.updateSubscription(ctx.db, row.id, { status: "unsubscribed", tokenHash: null, updatedAt: ctx.clock.now() });
  return stateOf({ ...row, status: "unsubscribed" });
}

// ---- Client events (154) ----

/** Every event is checked (each problem named by its index) before any is stored: a batch is all or nothing. */
export function ingestClientEvents(ctx: AppContext, events: ClientEventInput[], visitor: Visitor) {
  const now = ctx.clock.now();
  const sender = visitorOf(ctx, visitor.ip);
  const errors: FieldError[] = [];
  const rows: ClientEventRow[] = events.map((event, i) => {
    const at = (field: string, message: string) => errors.push({ field: `events[${i}].${field}`, message });
    if (event.properties !== undefined) {
      const bytes = Buffer.byteLength(JSON.stringify(event.properties));
      if (bytes > LIMITS.eventPropertyBytes) at("properties", `is ${bytes} bytes as JSON; the most allowed is ${LIMITS.eventPropertyBytes}`);
    }
    if (event.url !== undefined && !httpUrl(event.url)) at("url", "must be an absolute http or https URL");
    let occurredAt = now;
    if (event.occurred_at !== undefined) {
      const parsed = parseIso(event.occurred_at);
      if (parsed === null) at("occurred_at", "is not an ISO 8601 time");
      else if (parsed > now + LIMITS.eventFutureSkewMs) at("occurred_at", "is more than 10 minutes in the future");
      else if (parsed < now - LIMITS.eventMaxAgeMs) at("occurred_at", "is more than 30 days in the past");
      else occurredAt = parsed;
    }
    return {
      id: newTimeOrderedId("cev", now),
      name: event.name.trim(),
      properties: event.properties ?? null,
      anonymousId: event.anonymous_id ?? null,
      url: event.url ?? null,
      occurredAt,
      visitor: sender,
      receivedAt: now,
    };
  });
  failIf(errors);
  repo.insertClientEvents(ctx.db, rows);
  return { object: "event_batch" as const, accepted: rows.length };
}

function httpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
