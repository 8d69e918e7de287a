import { Elysia } from "elysia";
import type { HttpContext } from "./context.ts";
import { readCredential, resolveSession, resolveWorkspacePrincipal, WORKSPACE_HEADER } from "./principals.ts";
import { ApiError } from "./errors.ts";
import { requireLevel, type Principal, type SessionPrincipal } from "./permissions.ts";
import { enforceRateLimit } from "./rate-limit.ts";
import { requestMeta, type RequestMeta } from "./request-meta.ts";

const plugins = new WeakMap<HttpContext, ReturnType<typeof buildAuthPlugin>>();

/**
 * Route guards as macros, declared once per route:
 *   { auth: "read" | "write" | "admin" | "operator" }  a workspace credential (API key or member JWT)
 *   { user: true }                                     a signed-in person (JWT), not an API key
 *   { public: true }                                   anyone, rate-limited per client IP
 * They run in `transform`, before body validation, so a stranger learns nothing about a route's schema.
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
  const { rateLimiter, config } = ctx;

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

  return new Elysia({ name: "parley.auth" }).macro({
    auth: (needed: "read" | "write" | "admin" | "operator") => ({
      detail: { "x-required-scope": needed, security: [{ bearerAuth: [] }] },
      async transform({ request }: { request: Request }) {
        const meta = requestMeta(request);
        const credential = readCredential(request.headers.get("authorization"));
        if (!credential) {
          limitByIp(meta);
          throw new ApiError("unauthorized", "this operation needs an API key or access token: Authorization: Bearer <credential>");
        }
        const requested = request.headers.get(WORKSPACE_HEADER);
        const principal = await authenticate(meta, () => resolveWorkspacePrincipal(ctx, credential, requested));
        meta.principal = principal;
        enforceRateLimit(rateLimiter, meta, `cred:${principal.apiKeyId ?? principal.userId}`, config.rateLimitPerMinute);
        requireLevel(principal, needed);
      },
      resolve({ request }: { request: Request }) {
        return { principal: requestMeta(request).principal as Principal };
      },
    }),
    user: (_enabled: true) => ({
      detail: { "x-required-scope": "user", security: [{ bearerAuth: [] }] },
      async transform({ request }: { request: Request }) {
        const meta = requestMeta(request);
        const credential = readCredential(request.headers.get("authorization"));
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
      },
      resolve({ request }: { request: Request }) {
        return { session: requestMeta(request).session as SessionPrincipal };
      },
    }),
    public: (_enabled: true) => ({
      detail: { "x-required-scope": "public", security: [] },
      transform({ request }: { request: Request }) {
        limitByIp(requestMeta(request));
      },
    }),
  });
}
