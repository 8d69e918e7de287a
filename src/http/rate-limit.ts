import type { Clock } from "../core/clock.ts";
import { MINUTE } from "../lib/time.ts";
import { ApiError } from "./errors.ts";
import type { RequestMeta } from "./request-meta.ts";

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
}

/** Counts a request against a key's limit: in this process (SQLite), or for the cluster (shared-rate-limit.ts). */
export interface Limiter {
  hit(key: string, limit: number): RateDecision;
}

/**
 * Fixed one-minute windows per key, in memory: on SQLite Parley is one process on one box, so there is
 * no shared store to consult, and a restart forgiving a minute of traffic is harmless.
 */
export class RateLimiter implements Limiter {
  private windows = new Map<string, { start: number; count: number }>();
  private hitsSinceSweep = 0;

  constructor(private clock: Clock, private windowMs = MINUTE) {}

  hit(key: string, limit: number): RateDecision {
    const now = this.clock.now();
    if (++this.hitsSinceSweep >= 10_000) this.sweep(now);
    let window = this.windows.get(key);
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count++;
    const resetSeconds = Math.max(1, Math.ceil((window.start + this.windowMs - now) / 1000));
    return { allowed: window.count <= limit, limit, remaining: Math.max(0, limit - window.count), resetSeconds };
  }

  private sweep(now: number): void {
    this.hitsSinceSweep = 0;
    for (const [key, window] of this.windows) if (now - window.start >= this.windowMs) this.windows.delete(key);
  }
}

/** Counts the request against `key`, sets the RateLimit headers, and throws 429 past the limit. */
export function enforceRateLimit(limiter: Limiter, meta: RequestMeta, key: string, limit: number): void {
  const decision = limiter.hit(key, limit);
  meta.headers["ratelimit-limit"] = String(decision.limit);
  meta.headers["ratelimit-remaining"] = String(decision.remaining);
  meta.headers["ratelimit-reset"] = String(decision.resetSeconds);
  if (!decision.allowed) {
    throw new ApiError("rate_limited", `rate limit of ${limit} requests per minute exceeded; retry in ${decision.resetSeconds} s`, {
      headers: { "retry-after": String(decision.resetSeconds) },
    });
  }
}
