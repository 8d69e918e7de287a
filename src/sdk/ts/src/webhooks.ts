import { ParleyError } from "./errors.js";
import type { AgentEvent, WebhookEvent, WorkspaceEvent } from "./generated/types.js";

/** A delivery that is not from Parley, altered, or too old. */
export class WebhookVerificationError extends ParleyError {
  override name = "WebhookVerificationError";
}

export type HeaderBag = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** `standard` (webhook-id/-timestamp/-signature), `brand` (`X-<Brand>-Signature: sha256=…`) or `any` (default: each scheme present must verify, and one must be). */
  scheme?: "any" | "standard" | "brand";
  /** Seconds a Standard Webhooks timestamp may be off (default 300). */
  toleranceSeconds?: number;
  /** The current time in ms (tests). */
  now?: number;
}

type Subtle = {
  importKey(format: "raw", key: Uint8Array, algorithm: { name: "HMAC"; hash: "SHA-256" }, extractable: false, usages: ["sign"]): Promise<unknown>;
  sign(algorithm: "HMAC", key: unknown, data: Uint8Array): Promise<ArrayBuffer>;
};

async function subtle(): Promise<Subtle> {
  const global = (globalThis as { crypto?: { subtle?: Subtle } }).crypto;
  if (global?.subtle) return global.subtle;
  // Node 18 keeps WebCrypto in its module; the specifier is a variable so browser bundlers leave it alone.
  const name = "node:crypto";
  return ((await import(name)) as { webcrypto: { subtle: Subtle } }).webcrypto.subtle;
}

const encoder = new TextEncoder();

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const crypto = await subtle();
  const imported = await crypto.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return new Uint8Array(await crypto.sign("HMAC", imported, data));
}

/** Compares every byte, whatever differs first (no early exit that would time a guess). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  let diff = a.length ^ b.length;
  for (let i = 0; i < Math.max(a.length, b.length); i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

function fromHex(text: string): Uint8Array {
  if (!/^(?:[0-9a-f]{2})*$/i.test(text)) return new Uint8Array();
  return Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

function header(headers: HeaderBag, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value.join(",") : value;
}

/** `X-<Brand>-Signature`: the brand is the reseller's, so any `x-…-signature` header counts. */
function brandHeader(headers: HeaderBag): string | undefined {
  const names = headers instanceof Headers ? [...headers.keys()] : Object.keys(headers);
  const name = names.find((n) => /^x-.+-signature$/i.test(n));
  return name === undefined ? undefined : header(headers, name.toLowerCase());
}

async function verifyStandard(body: Uint8Array, headers: HeaderBag, secret: string, options: VerifyOptions): Promise<void> {
  const id = header(headers, "webhook-id");
  const timestamp = header(headers, "webhook-timestamp");
  const signatures = header(headers, "webhook-signature");
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError("missing webhook-id, webhook-timestamp or webhook-signature");
  const seconds = Number(timestamp);
  const now = (options.now ?? Date.now()) / 1000;
  if (!Number.isFinite(seconds) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) throw new WebhookVerificationError("webhook-timestamp is outside the tolerance");
  const key = fromBase64(secret.startsWith("whsec_") ? secret.slice(6) : secret);
  const signed = new Uint8Array([...encoder.encode(`${id}.${timestamp}.`), ...body]);
  const expected = await hmac(key, signed);
  const candidates = signatures.split(" ").filter((s) => s.startsWith("v1,")).map((s) => s.slice(3));
  let ok = false;
  for (const candidate of candidates) {
    let bytes: Uint8Array;
    try {
      bytes = fromBase64(candidate);
    } catch {
      continue;
    }
    ok = sameBytes(bytes, expected) || ok;
  }
  if (!ok) throw new WebhookVerificationError("no webhook-signature matches");
}

async function verifyBrand(body: Uint8Array, headers: HeaderBag, secret: string): Promise<void> {
  const value = brandHeader(headers);
  if (!value) throw new WebhookVerificationError("missing the X-…-Signature header");
  const expected = await hmac(encoder.encode(secret), body);
  let ok = false;
  for (const candidate of value.split(",").map((s) => s.trim())) {
    if (candidate.startsWith("sha256=")) ok = sameBytes(fromHex(candidate.slice(7)), expected) || ok;
  }
  if (!ok) throw new WebhookVerificationError("no sha256 signature matches");
}

/**
 * Checks a delivery against the endpoint's (or agent's) secret and returns its event. Pass the raw
 * body exactly as received: parsing and re-serialising JSON changes the bytes that were signed.
 */
export async function verifyWebhook(payload: string | Uint8Array | ArrayBuffer, headers: HeaderBag, secret: string, options: VerifyOptions = {}): Promise<WebhookEvent> {
  const body = typeof payload === "string" ? encoder.encode(payload) : payload instanceof ArrayBuffer ? new Uint8Array(payload) : payload;
  const scheme = options.scheme ?? "any";
  const hasStandard = header(headers, "webhook-signature") !== undefined;
  const hasBrand = brandHeader(headers) !== undefined;
  if (scheme === "standard") await verifyStandard(body, headers, secret, options);
  else if (scheme === "brand") await verifyBrand(body, headers, secret);
  else {
    if (!hasStandard && !hasBrand) throw new WebhookVerificationError("the delivery carries no signature");
    if (hasStandard) await verifyStandard(body, headers, secret, options);
    if (hasBrand) await verifyBrand(body, headers, secret);
  }
  return parseWebhookEvent(body);
}

/** The event in a delivery body (already verified): agent lifecycle events have `type`, workspace outcomes `event`. */
export function parseWebhookEvent(payload: string | Uint8Array): WebhookEvent {
  let event: unknown;
  try {
    event = JSON.parse(typeof payload === "string" ? payload : new TextDecoder().decode(payload));
  } catch {
    throw new WebhookVerificationError("the body is not JSON");
  }
  if (!event || typeof event !== "object" || (typeof (event as { type?: unknown }).type !== "string" && typeof (event as { event?: unknown }).event !== "string")) {
    throw new WebhookVerificationError("the body is not a Parley event");
  }
  return event as WebhookEvent;
}

/** Narrows an event to the call lifecycle set (sent to an agent's `webhook_url`). */
export function isAgentEvent(event: WebhookEvent): event is AgentEvent {
  return "type" in event;
}

/** Narrows an event to the outcome set (sent to workspace endpoints). */
export function isWorkspaceEvent(event: WebhookEvent): event is WorkspaceEvent {
  return "event" in event;
}
