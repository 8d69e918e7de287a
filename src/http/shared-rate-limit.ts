import type { AppContext } from "../core/context.ts";
import type { Statement } from "better-sqlite3";
import { databaseRefusal } from "../db/refusals.ts";
import { MINUTE } from "../lib/time.ts";
import { RateLimiter, type Limiter, type RateDecision } from "./rate-limit.ts";

/**
 * A node claims at most a twentieth of a key's limit at once (5 of 100; 1, so exact, below 40): with N
 * nodes, the cluster admits at worst (N - 1) × (claim - 1) fewer than the limit, what the other nodes
 * hold unspent when it is reached (8 of 100 with three nodes).
 */
export const LIMIT_PER_CLAIM = 20;
/** A claim takes at most a tenth of what the cluster has left, so claims shrink to 1 as the count nears the limit. */
const CLAIM_SHARE = 10;

/** The largest claim for `limit`: the tolerance of the cluster's count is (nodes - 1) × (this - 1) under the limit. */
export function largestClaim(limit: number): number {
  return Math.max(1, Math.floor(limit / LIMIT_PER_CLAIM));
}

/** What this node may still admit for a key in the current window, and what the cluster had counted at its last claim. */
interface Allowance {
  windowStart: number;
  left: number;
  counted: number;
}

/**
 * The limits of a cluster (PostgreSQL mode): every node counts in the shared `rate_counters` row of
 * (key, minute), windows aligned to the minute. A node claims allowance in small batches with one
 * upsert that returns the cluster's count, and admits locally until the batch is spent, so most
 * requests cost no statement. Claims are never returned, so the cluster never admits more than the
 * limit; it may admit less by what other nodes hold unspent when the window ends (see LIMIT_PER_CLAIM). Once
 * the cluster's count has reached the limit, the node refuses the rest of the window without asking.
 * While the database refuses (unreachable, busy), each node counts on its own instead: a request is
 * never failed for its counter, at the price of N nodes admitting up to N × the limit meanwhile.
 */
export class SharedRateLimiter implements Limiter {
  private allowances = new Map<string, Allowance>();
  private local: RateLimiter;
  private claimStatement: Statement<[string, number, number]> | null = null;
  private hitsSinceSweep = 0;
  private warnedAt = -Infinity;

  constructor(private ctx: Pick<AppContext, "sqlite" | "clock" | "logger">) {
    this.local = new RateLimiter(ctx.clock);
  }

  hit(key: string, limit: number): RateDecision {
    const now = this.ctx.clock.now();
    const windowStart = Math.floor(now / MINUTE) * MINUTE;
    if (++this.hitsSinceSweep >= 10_000) this.sweep(windowStart);
    let allowance = this.allowances.get(key);
    if (!allowance || allowance.windowStart !== windowStart) {
      allowance = { windowStart, left: 0, counted: 0 };
      this.allowances.set(key, allowance);
    }
    if (allowance.left === 0 && allowance.counted < limit) {
      const wanted = Math.max(1, Math.min(largestClaim(limit), Math.floor((limit - allowance.counted) / CLAIM_SHARE)));
      let counted: number;
      try {
        counted = this.claim(key, windowStart, wanted);
      } catch (error) {
        if (!databaseRefusal(error)) throw error;
        this.warn(error);
        return this.local.hit(key, limit);
      }
      allowance.left = Math.min(wanted, Math.max(0, limit - (counted - wanted)));
      allowance.counted = counted;
    }
    const resetSeconds = Math.max(1, Math.ceil((windowStart + MINUTE - now) / 1000));
    if (allowance.left === 0) return { allowed: false, limit, remaining: 0, resetSeconds };
    allowance.left--;
    // Used, as far as this node knows: every claim up to its last one, less what it still holds.
    return { allowed: true, limit, remaining: Math.max(0, limit - (allowance.counted - allowance.left)), resetSeconds };
  }

  /** Adds `wanted` to the key's count for the window; returns the count after it. */
  private claim(key: string, windowStart: number, wanted: number): number {
    this.claimStatement ??= this.ctx.sqlite.prepare(
      "INSERT INTO rate_counters (key, window_start, count) VALUES (?, ?, ?) ON CONFLICT (key, window_start) DO UPDATE SET count = rate_counters.count + excluded.count RETURNING count",
    );
    return (this.claimStatement.get(key, windowStart, wanted) as { count: number }).count;
  }

  private warn(error: unknown): void {
    const now = this.ctx.clock.now();
    if (now - this.warnedAt < MINUTE) return;
    this.warnedAt = now;
    this.ctx.logger.warn("rate limits counted by this node alone while the database refuses", { error: (error as Error).message });
  }

  private sweep(windowStart: number): void {
    this.hitsSinceSweep = 0;
    for (const [key, allowance] of this.allowances) if (allowance.windowStart !== windowStart) this.allowances.delete(key);
  }
}
