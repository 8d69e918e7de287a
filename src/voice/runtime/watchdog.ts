import type { AppContext } from "../../core/context.ts";
import { TRANSPORT_SILENCE_LIMIT_MS } from "./call-session.ts";
import { liveCalls } from "./registry.ts";

/** The session ends itself at max duration; the watchdog steps in only if it failed to, after this. */
const MAX_DURATION_GRACE_MS = 5_000;
/** Carriers give up ringing after about a minute; twice that without word means their report was lost. */
const RING_LIMIT_MS = 120_000;

/**
 * No call stays live forever: one whose transport stopped delivering audio, that outlived its max
 * duration (a stuck session), or that rings on without the carrier ever reporting an answer or a
 * failure, is ended with a reason, and its terminal events fire as usual.
 */
export function watchLiveCalls(
  ctx: AppContext,
  options: { transportSilenceLimitMs?: number; ringLimitMs?: number } = {},
): { vanished: number; overtime: number; unanswered: number } {
  const silenceLimitMs = options.transportSilenceLimitMs ?? TRANSPORT_SILENCE_LIMIT_MS;
  const result = { vanished: 0, overtime: 0, unanswered: 0 };
  const now = ctx.clock.now();
  for (const call of [...liveCalls(ctx).values()]) {
    if (call.answeredAt === null) {
      if (call.ringingForMs() > (options.ringLimitMs ?? RING_LIMIT_MS)) {
        call.terminate("never_answered");
        result.unanswered++;
      }
      continue;
    }
    if (now - call.answeredAt > call.maxDurationMs + MAX_DURATION_GRACE_MS) {
      call.terminate("max_duration");
      result.overtime++;
    } else if (call.silentForMs() > silenceLimitMs) {
      call.terminate("transport_lost");
      result.vanished++;
    }
  }
  return result;
}

/**
 * At shutdown the calls in this process end with it: each is hung up and recorded (`server_shutdown`,
 * with its terminal events) before the database closes, rather than left for the next start to find.
 */
export async function endLiveCallsAtShutdown(ctx: AppContext, deadlineMs: number): Promise<number> {
  const calls = [...liveCalls(ctx).values()];
  for (const call of calls) call.terminate("shutdown");
  const ended = Promise.allSettled(calls.map((call) => call.done));
  await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, deadlineMs).unref?.())]);
  return calls.length;
}
