import type { AppContext } from "../../core/context.ts";
import { endOrphanedCalls } from "../../modules/calls/lifecycle.ts";
import { TRANSPORT_SILENCE_LIMIT_MS } from "./call-session.ts";
import { liveCalls } from "./registry.ts";

/** The session ends itself at max duration; the watchdog steps in only if it failed to, after this. */
const MAX_DURATION_GRACE_MS = 5_000;

/**
 * No call stays live forever: one whose transport stopped delivering audio, or that outlived its
 * max duration (a stuck session), is ended with a reason, and its terminal events fire as usual.
 */
export function watchLiveCalls(ctx: AppContext): { vanished: number; overtime: number } {
  const result = { vanished: 0, overtime: 0 };
  const now = ctx.clock.now();
  for (const call of [...liveCalls(ctx).values()]) {
    if (call.answeredAt === null) continue;
    if (now - call.answeredAt > call.maxDurationMs + MAX_DURATION_GRACE_MS) {
      call.terminate("max_duration");
      result.overtime++;
    } else if (call.silentForMs() > TRANSPORT_SILENCE_LIMIT_MS) {
      call.terminate("transport_lost");
      result.vanished++;
    }
  }
  return result;
}

/**
 * At start no call can be live yet, so a call a previous process left ringing or in progress lost
 * its audio with that process: end it (one process per data dir, as the database file is).
 */
export function endCallsOfPreviousRun(ctx: AppContext): number {
  const registry = liveCalls(ctx);
  return endOrphanedCalls(ctx, (id) => registry.has(id));
}
