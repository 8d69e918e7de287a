import type { AppContext } from "../../core/context.ts";
import type { MediaCounts } from "../../telephony/types.ts";

/** What the API can do to a call that is live in this process. */
export interface LiveCall {
  callId: string;
  workspaceId: string;
  /** `simulated`, `sip`, `twilio`, `telnyx` or `browser`. */
  readonly carrierKind: string;
  /** How the caller's media has arrived so far, when the leg crosses a network. */
  mediaCounts(): MediaCounts | null;
  /** Ends the call now (`agent_hangup` unless said otherwise). */
  hangup(reason?: string): void;
  /** The agent says this now, after anything it is already saying. */
  say(text: string): void;
  /** The agent says this (after what it is saying), then the call ends with `reason`, even if speaking fails. */
  sayAndEnd(text: string, reason: string): void;
  transfer(to: string, reason: string | null): Promise<void>;
  /** Milliseconds since the transport last delivered audio (the watchdog's measure of a vanished leg). */
  silentForMs(): number;
  /** Milliseconds since it was dialled while nobody has answered yet (0 once answered). */
  ringingForMs(): number;
  /** Milliseconds of talk since the answer, by the call's own media clock: what its duration records (and metering charges). */
  talkMs(): number;
  /**
   * Ends the call because its time is up, its transport vanished, the carrier never said how the dialling
   * went (the watchdog), the server is stopping, or the others declared this node lost (they recorded the end).
   */
  terminate(reason: "max_duration" | "transport_lost" | "never_answered" | "shutdown" | "node_lost"): void;
  /** Settles once the call has ended and its end is recorded. */
  readonly done: Promise<void>;
  readonly maxDurationMs: number;
  readonly answeredAt: number | null;
}

const registries = new WeakMap<AppContext, Map<string, LiveCall>>();

export function liveCalls(ctx: AppContext): Map<string, LiveCall> {
  let registry = registries.get(ctx);
  if (!registry) registries.set(ctx, (registry = new Map()));
  return registry;
}
