import { Elysia } from "elysia";
import type { HttpContext } from "./context.ts";
import { readCredential, resolveSession, resolveWorkspacePrincipal, WORKSPACE_HEADER } from "./principals.ts";
import { ApiError } from "./errors.ts";
import { requireLevel, type Principal, type RouteAuth, type SessionPrincipal } from "./permissions.ts";
import { assertNotSuspended } from "./suspensions.ts";
import { enforceRateLimit } from "./rate-limit.ts";
import { requestMeta, type RequestMeta } from "./request-meta.ts";
import { nodeSignatureProblem } from "../cluster/internal-channel.ts";

/** Health checks per client IP and minute, as a multiple of the public limit (300 by default). */
export const PROBE_ALLOWANCE = 10;

/** Carrier callbacks per sending IP and minute, as a multiple of the credential limit. */
const CARRIER_ALLOWANCE = 10;

/** What a route asks of its caller: its documented auth, a probe (public, with a bucket of its own), or another node of the cluster. */
export type Guard = RouteAuth | "probe" | "node";

/** Checks a request against its route's guard once (resolving its credential, counting it), before anything reads the body. */
export type Admit = (request: Request, guard: Guard) => Promise<void>;

const admitters = new WeakMap<HttpContext, Admit>();
const plugins = new WeakMap<HttpContext, ReturnType<typeof buildAuthPlugin>>();

/**
 * The guard of every route, in one place. A request is admitted before its body is read (the body
 * parser calls this first) or, for requests without a body, in the route's `transform`: a stranger
 * or a credential without the scope learns nothing about a route's body schema.
 */
export function admission(ctx: HttpContext): Admit {
  let admit = admitters.get(ctx);
  if (!admit) {
    admit = buildAdmission(ctx);
    admitters.set(ctx, admit);
  }
  return admit;
}

function buildAdmission(ctx: HttpContext): Admit {
  const { rateLimiter, nodeRateLimiter, config } = ctx;

  /** Anonymous traffic, and failed sign-ins, count against the client's IP. */
  const limitByIp = (meta: RequestMeta) => enforceRateLimit(rateLimiter, meta, `ip:${meta.ip}`, config.publicRateLimitPerMinute);

  const authenticate = async <T>(meta: RequestMeta, resolve: () => Promise<T>): Promise<T> => {
    try {
      return await resolve();
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) limitByIp(meta);
      throw error;
    }
  };

  return async (request, guard) => {
    const meta = requestMeta(request);
    if (meta.admitted) return;
    meta.admitted = true;
    // A session token's route checks the token itself; the browser holding it counts as anonymous traffic.
    if (guard === "public" || guard === "token") return limitByIp(meta);
    // A monitor or load balancer behind the same address as busy public traffic (a NAT, the balancer
    // itself) must never see 429 from health because of that traffic: probes count on their own, and
    // per node (a balancer probes each node of a cluster: more nodes must not make it 429).
    if (guard === "probe") return enforceRateLimit(nodeRateLimiter, meta, `probe:${meta.ip}`, config.publicRateLimitPerMinute * PROBE_ALLOWANCE);
    // A carrier sends a callback per call event from a few addresses: its own bucket, at the
    // credential rate, per node (its callbacks grow with the calls the cluster carries); the route
    // itself checks the carrier's signature.
    if (guard === "carrier") return enforceRateLimit(nodeRateLimiter, meta, `carrier:${meta.ip}`, config.rateLimitPerMinute * CARRIER_ALLOWANCE);
    // Another node of the cluster, proven by the node key's signature before the body is read (the route
    // checks the body against it); it acts for a request already counted where it came in.
    if (guard === "node") {
      const problem = nodeSignatureProblem(ctx, request);
      if (!problem) return;
      limitByIp(meta);
      if (problem === "missing") throw new ApiError("unauthorized", "this route is for the nodes of the cluster: the request carries no node signature");
      throw new ApiError("forbidden", problem === "stale" ? "the node signature is more than 30 s old (or the nodes' clocks differ)" : "the node signature does not match this cluster's key");
    }
    const credential = readCredential(request.headers.get("authorization"));
    if (guard === "user") {
      if (!credential) {
        limitByIp(meta);
        throw new ApiError("unauthorized", "this operation needs a signed-in user: Authorization: Bearer <access token>");
      }
      if (credential.kind === "api_key") {
        limitByIp(meta);
        throw new ApiError("forbidden", "this operation needs a signed-in user (access token), not an API key");
      }
      const session = await authenticate(meta, () => resolveSession(ctx, credential.token));
      meta.session = session;
      enforceRateLimit(rateLimiter, meta, `cred:${session.userId}`, config.rateLimitPerMinute);
      return;
    }
    if (!credential) {
      limitByIp(meta);
      throw new ApiError("unauthorized", "this operation needs an API key or access token: Authorization: Bearer <credential>");
    }
    const principal = await authenticate(meta, () => resolveWorkspacePrincipal(ctx, credential, request.headers.get(WORKSPACE_HEADER)));
    meta.principal = principal;
    enforceRateLimit(rateLimiter, meta, `cred:${principal.apiKeyId ?? principal.userId}`, config.rateLimitPerMinute);
    assertNotSuspended(ctx, principal.workspaceId);
    requireLevel(principal, guard, request.method);
  };
}

/**
 * Route guards as macros, declared once per route:
 *   { auth: "read" | "write" | "admin" | "operator" }  a workspace credential (API key or member JWT)
 *   { user: true }                                     a signed-in person (JWT), not an API key
 *   { public: true }                                   anyone, rate-limited per client IP
 *   { probe: true }                                    anyone, per client IP in a bucket of its own (health checks)
 *   { carrier: true }                                  a carrier's callback: the route checks the carrier's signature
 *   { token: true }                                    a browser holding a single-use session token: the route redeems it
 *   { node: true }                                     another node of the cluster (signed with the node key); never documented
 */
export function authPlugin(ctx: HttpContext) {
  let plugin = plugins.get(ctx);
  if (!plugin) {
    plugin = buildAuthPlugin(ctx);
    plugins.set(ctx, plugin);
  }
  return plugin;
}

function buildAuthPlugin(ctx: HttpContext) {
  const admit = admission(ctx);
  return new Elysia({ name: "parley.auth" }).macro({
    auth: (needed: "read" | "write" | "admin" | "operator") => ({
      detail: { "x-required-scope": needed, security: [{ bearerAuth: [] }] },
      transform: ({ request }: { request: Request }) => admit(request, needed),
      resolve({ request }: { request: Request }) {
        return { principal: requestMeta(request).principal as Principal };
      },
    }),
    user: (_enabled: true) => ({
      detail: { "x-required-scope": "user", security: [{ bearerAuth: [] }] },
      transform: ({ request }: { request: Request }) => admit(request, "user"),
      resolve({ request }: { request: Request }) {
        return { session: requestMeta(request).session as SessionPrincipal };
      },
    }),
    public: (_enabled: true) => ({
      detail: { "x-required-scope": "public", security: [] },
      transform: ({ request }: { request: Request }) => admit(request, "public"),
    }),
    token: (_enabled: true) => ({
      detail: { "x-required-scope": "token", security: [] },
      transform: ({ request }: { request: Request }) => admit(request, "token"),
    }),
    carrier: (_enabled: true) => ({
      detail: { "x-required-scope": "carrier", security: [] },
      transform: ({ request }: { request: Request }) => admit(request, "carrier"),
    }),
    node: (_enabled: true) => ({
      detail: { "x-node": true, hide: true },
      transform: ({ request }: { request: Request }) => admit(request, "node"),
    }),
    probe: (_enabled: true) => ({
      detail: { "x-required-scope": "public", "x-probe": true, security: [] },
      transform: ({ request }: { request: Request }) => admit(request, "probe"),
    }),
  });
}
