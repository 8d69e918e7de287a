import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { isPublicAddress } from "./address-policy.ts";

/** Why an outgoing request was not sent, in words a user can act on. */
export class OutboundRefused extends Error {}

export interface OutboundPolicy {
  /** PARLEY_ALLOW_PRIVATE_URLS: http:// and internal addresses allowed (local dev, on-prem). */
  allowPrivate: boolean;
  /** Name resolution; the system resolver unless a test supplies its own. */
  resolve?: (host: string) => Promise<{ address: string; family: number }[]>;
}

/** Checks a URL's shape before it is stored (the address itself is checked again when used). */
export function checkUrlShape(raw: string, policy: OutboundPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new OutboundRefused("is not an absolute URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new OutboundRefused("must be an http(s) URL");
  if (url.username || url.password) throw new OutboundRefused("must not carry credentials; use the signing secret");
  if (policy.allowPrivate) return url;
  if (url.protocol !== "https:") throw new OutboundRefused("must use https (http is allowed only when the operator enables private URLs)");
  // A name's final dot ("localhost.") names the same host.
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "");
  if (isIP(host) && !isPublicAddress(host)) throw new OutboundRefused("points at a private, loopback or link-local address");
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".internal") || host.endsWith(".local")) {
    throw new OutboundRefused("points at a local host name");
  }
  return url;
}

export interface OutboundRequest {
  method: "GET" | "POST" | "DELETE" | "PATCH";
  headers: Record<string, string>;
  body?: string | FormData | Uint8Array;
  timeoutMs: number;
  /** Bytes of the response body kept; the rest is not read. */
  maxResponseBytes: number;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  status: number;
  headers: Headers;
  body: Uint8Array;
  truncated: boolean;
  durationMs: number;
}

/**
 * Sends a request where the policy allows it. Without private URLs, the host name is resolved here
 * and every address checked; the connection then goes to that checked address (Host and TLS name
 * kept), so a DNS answer that changes between check and connect cannot redirect it inside.
 */
export async function sendOutbound(raw: string, request: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResponse> {
  const started = performance.now();
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const response = await openOutbound(raw, { ...request, signal: request.signal ? AbortSignal.any([timeout, request.signal]) : timeout }, policy, timeout, request.timeoutMs);
  try {
    const { body, truncated } = await readCapped(response, request.maxResponseBytes);
    return { status: response.status, headers: response.headers, body, truncated, durationMs: Math.round(performance.now() - started) };
  } catch (error) {
    if (timeout.aborted) throw new OutboundTimeout(`the response did not finish within ${request.timeoutMs / 1000} s`);
    throw new OutboundFailed(describeNetworkError(error));
  }
}

/**
 * The same checks, but hands back the response unread: for streams (model output, audio) that the
 * caller consumes as they arrive. `signal` should carry the caller's own time-out.
 */
export async function openOutbound(
  raw: string,
  request: { method: "GET" | "POST" | "DELETE" | "PATCH"; headers: Record<string, string>; body?: string | FormData | Uint8Array; signal?: AbortSignal },
  policy: OutboundPolicy,
  timeout?: AbortSignal,
  timeoutMs?: number,
): Promise<Response> {
  const pinned = await pinToCheckedAddress(checkUrlShape(raw, policy), policy);
  const target = pinned.url.toString();
  const headers: Record<string, string> = { ...request.headers, ...pinned.headers };
  const tls = pinned.tls;
  try {
    return await fetch(target, { method: request.method, headers, body: request.body, signal: request.signal, redirect: "manual", tls } as RequestInit);
  } catch (error) {
    if (timeout?.aborted || (error as Error)?.name === "TimeoutError") throw new OutboundTimeout(`no response within ${(timeoutMs ?? 0) / 1000} s`);
    throw new OutboundFailed(describeNetworkError(error));
  }
}

/** Where to connect for a shape-checked URL, with the Host header and TLS name that keep it the same request. */
export interface PinnedTarget {
  url: URL;
  headers: { host?: string };
  tls: { serverName?: string };
}

/**
 * THE resolve-and-pin step every outgoing connection takes (HTTP and WebSocket): without private
 * URLs the host name is resolved here, every address checked, and the connection pinned to a checked
 * one (Host header and TLS name kept), so a DNS answer that changes between check and connect
 * cannot redirect it inside.
 */
export async function pinToCheckedAddress(url: URL, policy: OutboundPolicy): Promise<PinnedTarget> {
  if (policy.allowPrivate) return { url: new URL(url), headers: {}, tls: {} };
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await (policy.resolve ?? resolveAll)(host);
  const refused = addresses.find((a) => !isPublicAddress(a.address));
  if (refused) throw new OutboundRefused(`${host} resolves to ${refused.address}, a private or reserved address`);
  const pinned = addresses[0];
  const target = new URL(url);
  target.hostname = pinned.family === 6 ? `[${pinned.address}]` : pinned.address;
  return { url: target, headers: { host: url.host }, tls: { serverName: host } };
}

export class OutboundTimeout extends Error {}
export class OutboundFailed extends Error {}

async function resolveAll(host: string): Promise<{ address: string; family: number }[]> {
  try {
    const addresses = await lookup(host, { all: true, verbatim: true });
    if (addresses.length === 0) throw new Error("no addresses");
    return addresses;
  } catch (error) {
    throw new OutboundFailed(`cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

async function readCapped(response: Response, maxBytes: number): Promise<{ body: Uint8Array; truncated: boolean }> {
  if (!response.body) return { body: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(chunks), truncated: false };
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      await reader.cancel().catch(() => {});
      return { body: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
}

function describeNetworkError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  return e?.code ? `${e.code}: ${e.message}` : (e?.message ?? String(error));
}
