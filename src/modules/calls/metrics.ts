import type { AppContext } from "../../core/context.ts";
import { CALL_STATUSES } from "../../db/schema/index.ts";

/**
 * Every end reason Parley itself gives (the runtime, the carriers' legs, the wallet, suspensions). A
 * reason outside it is counted as `other`: the label set stays closed whatever a future caller passes.
 */
export const CALL_END_REASONS = [
  "customer_hangup",
  "agent_hangup",
  "silence_timeout",
  "max_duration",
  "voicemail",
  "transferred",
  "no_answer",
  "busy",
  "rejected",
  "failed",
  "local_hangup",
  "error",
  "protocol_error",
  "transport_failed",
  "server_shutdown",
  "insufficient_funds",
  "workspace_suspended",
  "node_lost",
] as const;
const KNOWN_REASONS = new Set<string>(CALL_END_REASONS);
const KNOWN_STATUSES = new Set<string>(CALL_STATUSES);

function callsEnded(ctx: AppContext) {
  return ctx.metrics.counter("parley_calls_ended_total", "Calls that reached a final status, by status and end reason (a reason outside Parley's own set is counted as other).", ["status", "end_reason"]);
}

export function callOutcomeMetrics(ctx: AppContext): void {
  callsEnded(ctx);
}

export function countCallEnd(ctx: AppContext, status: string, endReason: string): void {
  callsEnded(ctx).labels(KNOWN_STATUSES.has(status) ? status : "other", KNOWN_REASONS.has(endReason) ? endReason : "other").inc();
}
