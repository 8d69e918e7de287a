import { HOUR, SECOND } from "../lib/time.ts";

/**
 * Default retry delay: 15 s doubling per attempt, capped at one hour, with ±20 % jitter so a burst
 * of failures does not come back as a burst of retries.
 */
export function defaultBackoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(HOUR, 15 * SECOND * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + random() * 0.4));
}
