import type { AppContext } from "../core/context.ts";
import { AccessTokens } from "./access-tokens.ts";
import { instanceHostBrands, type HostBrands } from "./host-brand.ts";
import { RateLimiter, type Limiter } from "./rate-limit.ts";
import { SharedRateLimiter } from "./shared-rate-limit.ts";

/** The context route handlers get: the process's context plus what only the HTTP side keeps. */
export interface HttpContext extends AppContext {
  tokens: AccessTokens;
  /** Per process on SQLite; on PostgreSQL counted for the cluster in the database. */
  rateLimiter: Limiter;
  /** Counts in this process always: what a node is asked as itself (health probes, carrier callbacks). */
  nodeRateLimiter: Limiter;
  /** Which brand a request's Host picks (the white-label feature installs its lookup). */
  hostBrands: HostBrands;
}

/** Adds the HTTP side's state to a context (the same object, so every feature sees one context). */
export function withHttp<T extends AppContext>(ctx: T): T & HttpContext {
  const nodeRateLimiter = new RateLimiter(ctx.clock);
  return Object.assign(ctx, {
    tokens: new AccessTokens(ctx.keys.jwt, ctx.clock, ctx.config.brandSlug),
    rateLimiter: ctx.dialect === "postgres" ? new SharedRateLimiter(ctx) : nodeRateLimiter,
    nodeRateLimiter,
    hostBrands: instanceHostBrands(ctx),
  });
}
