import type { CallStatus } from "../../db/schema/index.ts";

/** One utterance of the conversation, as the transcript keeps it. */
export interface TurnRecord {
  role: "agent" | "caller";
  text: string;
  start_ms: number;
  end_ms: number;
  interrupted: boolean;
}

export interface CallEnding {
  status: Exclude<CallStatus, "queued" | "ringing" | "in_progress">;
  endReason: string;
  transferredTo?: string;
  recordingPath?: string | null;
  /** Slots a flow collected, used for extraction. */
  slots?: Record<string, unknown>;
  /** Audio time since the answer, as the session counted it (the clock's difference otherwise). */
  durationMs?: number;
}

/**
 * Where a live call reports what happens to it. The runtime only talks; whoever set the call up
 * (the calls feature) records each report with its events.
 */
export interface CallJournal {
  /** A timeline entry (engines chosen, a key pressed, a barge-in, latency…). */
  note(type: string, data: Record<string, unknown>): void;
  /** The audio session opened. */
  answered(): void;
  turn(turn: TurnRecord): void;
  error(code: string, message: string, fatal: boolean): void;
  transfer(to: string, reason: string | null): void;
  /** The terminal transition, exactly once. */
  end(ending: CallEnding): void;
}
