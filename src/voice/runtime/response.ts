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
  /** A preemptive reply: prepared while the caller may still go on, played only once the turn is confirmed. */
  held = false;
  /** Pieces of speech it has queued (a held reply prepares only its first). */
  pieces = 0;
  private release: (() => void) | null = null;
  private released: Promise<void> | null = null;

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
    this.release?.();
  }

  /** Holds its audio (and any tool call) until `confirm()`. */
  hold(): void {
    this.held = true;
    this.released = new Promise((resolve) => (this.release = resolve));
  }

  /** The caller's turn ended as the reply assumed: its audio may play. */
  confirm(): void {
    this.held = false;
    this.release?.();
  }

  /** Resolves once it may act (at once unless held); a reply cancelled meanwhile finds its signal aborted. */
  whenReleased(): Promise<void> {
    return this.held && this.released ? this.released : Promise.resolve();
  }

  /** The reason it was cancelled (only once `cancelled`). */
  get cancelCause(): ResponseCancel {
    return this.controller.signal.reason as ResponseCancel;
  }
}
