import type { TurnTiming } from "./latency.ts";

/** Whose words a response speaks: the brain's are in its history; a reminder does not restart the silence count. */
export type ResponseKind = "brain" | "reminder" | "say" | "voicemail";

/** Why a response in progress was cancelled: each cause leaves the conversation in a different state. */
export type ResponseCancel =
  /** The caller went on talking before the agent said a word: the response never happened. */
  | { cause: "dropped" }
  /** The caller talked over the agent: what they heard of it was said. */
  | { cause: "barge_in"; heard: string }
  | { cause: "ended" };

/**
 * One thing the agent says (LiveKit's SpeechHandle): it can be cancelled with a cause, may be
 * dropped unheard when the caller goes on talking, carries the timing of the turn it answers, and
 * holds what to do once its audio has played (end the call, transfer).
 */
export class AgentResponse {
  private readonly controller = new AbortController();
  /** Carried out once the audio has played, or at once when the caller talks over it. */
  afterPlayback: (() => void) | null = null;

  constructor(
    readonly kind: ResponseKind,
    /** Caller speech cancels it. */
    readonly interruptible: boolean,
    /** It may be cancelled before it is heard when the caller has more to say (not a greeting). */
    readonly droppable: boolean,
    /** From the caller's last word to the first frame of this response, when it answers a turn. */
    public timing: TurnTiming | null = null,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  cancel(cause: ResponseCancel): void {
    this.controller.abort(cause);
  }

  /** The reason it was cancelled (only once `cancelled`). */
  get cancelCause(): ResponseCancel {
    return this.controller.signal.reason as ResponseCancel;
  }
}
