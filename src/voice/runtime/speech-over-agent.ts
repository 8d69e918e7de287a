import { FRAME_MS } from "../media/media-clock.ts";
import { classifyOverlap, type OverlapVerdict } from "../turns/overlap.ts";
import type { ResolvedTurnTaking } from "../turns/settings.ts";
import type { Utterance } from "./caller-audio.ts";

/** Speech over the agent is over after this much quiet (a backchannel's end). */
const OVERLAP_END_MS = 300;
/** An overlap that ended undecided (no words yet from a batch recogniser) is judged without them after this long. */
const OVERLAP_VERDICT_WAIT_MS = 1500;

/** What the session does about the caller's speech over the agent. */
export type OverlapAction =
  /** Stop the agent: an interruption. */
  | { type: "interrupt"; reason: string }
  /** Undecided and long enough to matter: the agent's audio holds (the carrier's buffer is dropped). */
  | { type: "pause" }
  /** A backchannel or noise: the agent goes on (from where it paused, if it did). */
  | { type: "backchannel"; reason: string; resumed: boolean };

/** What the caller's side shows of the utterance the speech belongs to. */
export interface CallerView {
  readonly speaking: boolean;
  readonly current: Utterance;
  readonly hypothesis: string;
  /** Words come while the caller speaks (a streaming recogniser's partials), not only once they pause. */
  readonly partials: boolean;
}

interface Overlap {
  speechMs: number;
  silentMs: number;
  paused: boolean;
  /** The caller's utterance it is part of (once the segmenter confirmed speech). */
  utterance: Utterance | null;
}

/**
 * Judges caller speech over the agent frame by frame, by its length and words (turns/overlap.ts): a
 * real interruption stops the agent; a backchannel ("mm-hmm") or noise does not. While undecided the
 * agent's audio is held, and goes on where it stopped if it was a backchannel.
 */
export class SpeechOverAgent {
  private overlap: Overlap | null = null;

  constructor(
    private readonly settings: ResolvedTurnTaking["interruptions"],
    private readonly caller: CallerView,
  ) {}

  /** Speech over the agent is being judged. */
  get open(): boolean {
    return this.overlap !== null;
  }

  /** The agent's audio is held meanwhile. */
  get paused(): boolean {
    return this.overlap?.paused ?? false;
  }

  /** The agent finished its turn: speech now is the caller's own turn. */
  close(): void {
    this.overlap = null;
  }

  /** The caller's segmenter confirmed speech: its utterance carries the words to judge. */
  speechStarted(): void {
    if (this.overlap && !this.overlap.utterance) this.overlap.utterance = this.caller.current;
  }

  /** One frame of the caller's while the agent talks (or an overlap is open). */
  frame(isSpeech: boolean, agentSpeaking: boolean): OverlapAction | null {
    let overlap = this.overlap;
    if (!overlap) {
      if (!isSpeech || !agentSpeaking) return null;
      // Speech over the agent may go on an utterance of the caller's still open (its wait not yet run out).
      overlap = this.overlap = { speechMs: 0, silentMs: 0, paused: false, utterance: this.caller.speaking ? this.caller.current : null };
    }
    if (isSpeech) {
      overlap.speechMs += FRAME_MS;
      overlap.silentMs = 0;
    } else overlap.silentMs += FRAME_MS;
    const { minSpeechMs } = this.settings;
    if (this.settings.backchannels === "interrupt") {
      // Every stretch of speech long enough stops the agent, "mm-hmm" included.
      if (overlap.speechMs >= minSpeechMs || !isSpeech) this.overlap = null;
      return overlap.speechMs >= minSpeechMs ? { type: "interrupt", reason: "speech over the agent" } : null;
    }
    const ended = overlap.silentMs >= OVERLAP_END_MS;
    const text = overlap.utterance && overlap.utterance === this.caller.current ? this.caller.hypothesis : "";
    // The words are still being recognised (a batch recogniser has no partials): wait for them, audio held.
    if (ended && !text && overlap.utterance && overlap.paused && overlap.silentMs < OVERLAP_VERDICT_WAIT_MS) return null;
    // A batch recogniser has words only at the caller's pause: length alone is no verdict before then (a
    // slow "mm-hmm" lasts a second); the agent is held meanwhile.
    if (!text && !ended && !this.caller.partials) return this.act("pending", "no words yet", agentSpeaking);
    const judged = classifyOverlap({ text, speechMs: overlap.speechMs, ended, sensitivity: this.settings.sensitivity });
    // Held past the wait with no words to judge: the agent goes on rather than stay silent.
    if (judged.verdict === "pending" && ended && overlap.silentMs >= OVERLAP_VERDICT_WAIT_MS) return this.act("backchannel", "no words in time", agentSpeaking);
    return this.act(judged.verdict, judged.reason, agentSpeaking, judged.backchannelSoFar);
  }

  /** The words of an utterance, once recognised: they decide speech over the agent still held undecided. */
  words(text: string, utterance: Utterance, agentSpeaking: boolean): OverlapAction | null {
    const overlap = this.overlap;
    if (!overlap || overlap.utterance !== utterance || !overlap.paused) return null;
    const { verdict, reason } = classifyOverlap({ text, speechMs: overlap.speechMs, ended: true, sensitivity: this.settings.sensitivity });
    return this.act(verdict === "pending" ? "interruption" : verdict, reason, agentSpeaking);
  }

  private act(verdict: OverlapVerdict, reason: string, agentSpeaking: boolean, backchannelSoFar = false): OverlapAction | null {
    const overlap = this.overlap!;
    const { minSpeechMs } = this.settings;
    if (verdict === "interruption") {
      if (overlap.speechMs < minSpeechMs && !overlap.paused) return null;
      this.overlap = null;
      return { type: "interrupt", reason };
    }
    if (verdict === "backchannel") {
      this.overlap = null;
      if (overlap.utterance) overlap.utterance.backchannel = true;
      return { type: "backchannel", reason, resumed: overlap.paused };
    }
    // Only backchannel words so far ("mm-hmm" being said): the agent talks on; anything else holds it.
    if (!overlap.paused && !backchannelSoFar && agentSpeaking && overlap.speechMs >= minSpeechMs) {
      overlap.paused = true;
      return { type: "pause" };
    }
    return null;
  }
}
