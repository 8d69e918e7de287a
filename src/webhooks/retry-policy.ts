import { HOUR, MINUTE } from "../lib/time.ts";

/** Retries after the first attempt (DESIGN.md), counted from the first attempt: then the delivery is a dead letter. */
export const RETRY_OFFSETS_MS = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR, 24 * HOUR];
export const MAX_DELIVERY_ATTEMPTS = RETRY_OFFSETS_MS.length + 1;

/**
 * The delivery row counts attempts (above). Its job may run more often than that: a worker that
 * crashes mid-attempt is re-run by the lease lifeline without an attempt being recorded. This only
 * stops a job that keeps crashing; breaker waits are snoozes and never count.
 */
export const DELIVERY_JOB_RUN_LIMIT = 50;

/** When attempt number `attempt` (1-based) failed with a retryable answer: the next try, or null (give up). */
export function nextAttemptAt(attempt: number, firstAttemptAt: number, now: number, retryAfterMs: number | null): number | null {
  if (attempt >= MAX_DELIVERY_ATTEMPTS) return null;
  return Math.max(firstAttemptAt + RETRY_OFFSETS_MS[attempt - 1], now + (retryAfterMs ?? 0));
}
