import type { Config } from "../config/config.ts";
import { cidrContains, formatIp, parseIp } from "../lib/ip.ts";
import { newId } from "../lib/ids.ts";
import type { Principal, SessionPrincipal } from "./permissions.ts";

/** What one request accumulates on its way through the plugins (auth, limits, idempotency, audit). */
export interface RequestMeta {
  id: string;
  startedAt: number;
  /** performance.now() as the request came in: its duration for the metrics (startedAt is the context's clock, which tests stop). */
  receivedAt: number;
  ip: string;
  userAgent: string | null;
  principal?: Principal;
  session?: SessionPrincipal;
  /** Headers every response to this request carries, errors included (request id, rate limits). */
  headers: Record<string, string>;
  idempotency?: { scope: string; key: string };
  /** Final status, when an error handler produced the response. */
  status?: number;
  /** Set once the route's guard has run (before the body is read, or in transform). */
  admitted?: boolean;
  /** Set once the body has been read to its end: an error answer may then keep the connection open. */
  bodyRead?: boolean;
  /** Set once the audit row is queued, so no path records a request twice. */
  audited?: boolean;
  /** Set once the request is counted in the metrics, likewise. */
  measured?: boolean;
}

const metas = new WeakMap<Request, RequestMeta>();

export function createRequestMeta(request: Request, peerAddress: string | undefined, config: Config, now: number): RequestMeta {
  const incoming = request.headers.get("x-request-id");
  const id = incoming && /^[\w.:-]{8,128}$/.test(incoming) ? incoming : newId("req");
  const meta: RequestMeta = {
    id,
    startedAt: now,
    receivedAt: performance.now(),
    ip: clientIp(peerAddress, request.headers.get("x-forwarded-for"), config),
    userAgent: request.headers.get("user-agent")?.slice(0, 512) ?? null,
    headers: { "x-request-id": id },
  };
  metas.set(request, meta);
  return meta;
}

/** Whether a request says it sends a body (a length above 0, or chunked). */
export function carriesBody(request: Request): boolean {
  const length = request.headers.get("content-length");
  return (length !== null && length !== "0") || request.headers.has("transfer-encoding");
}

export function requestMeta(request: Request): RequestMeta {
  const meta = metas.get(request);
  if (!meta) throw new Error("request meta missing: the request-meta plugin must run first");
  return meta;
}

export function findRequestMeta(request: Request): RequestMeta | undefined {
  return metas.get(request);
}

/**
 * The peer address, unless the peer is a trusted proxy: then the right-most X-Forwarded-For entry
 * that is not itself a trusted proxy (entries further left are the client's own claims).
 */
export function clientIp(peer: string | undefined, forwardedFor: string | null, config: Config): string {
  const { bytes: peerBytes, canonical: canonicalPeer } = canonicalAddress(peer);
  if (!peerBytes || !forwardedFor || !isTrusted(peerBytes, config)) return canonicalPeer;
  const hops = forwardedFor.split(",").map((hop) => hop.trim()).filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    const bytes = parseIp(hops[i]);
    if (!bytes) return canonicalPeer;
    if (!isTrusted(bytes, config)) return formatIp(bytes);
  }
  return hops.length ? formatIp(parseIp(hops[0])!) : canonicalPeer;
}

// Clients keep coming back from the same few addresses: parse each once, not on every request.
const canonicalPeers = new Map<string, { bytes: Uint8Array | null; canonical: string }>();

function canonicalAddress(peer: string | undefined): { bytes: Uint8Array | null; canonical: string } {
  if (!peer) return { bytes: null, canonical: "unknown" };
  let known = canonicalPeers.get(peer);
  if (!known) {
    const bytes = parseIp(peer);
    known = { bytes, canonical: bytes ? formatIp(bytes) : peer };
    if (canonicalPeers.size >= 4096) canonicalPeers.clear();
    canonicalPeers.set(peer, known);
  }
  return known;
}

function isTrusted(ip: Uint8Array, config: Config): boolean {
  return config.trustedProxies.some((cidr) => cidrContains(cidr, ip));
}
