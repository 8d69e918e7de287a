/**
 * Answering-machine detection on an outbound call, from the first seconds of the callee's audio:
 * a person says something short ("Hello?") and waits; a machine talks on (its greeting) and ends
 * with a beep. Fed one VAD decision per frame plus any beep the tone detector heard.
 */
export type AmdVerdict = "human" | "machine";

export interface AmdOptions {
  /** Continuous-ish speech longer than this is a greeting, not a person. */
  greetingMs?: number;
  /** Silence after a short utterance that makes it a person waiting for an answer. */
  humanSilenceMs?: number;
  /** Silence from the start that counts as a person who picked up and says nothing. */
  initialSilenceMs?: number;
  /** Decide by then at the latest (as human). */
  maxMs?: number;
}

export class AnsweringMachineDetector {
  private elapsed = 0;
  private speechMs = 0;
  private silenceAfterSpeech = 0;
  private heardSpeech = false;
  private verdict: AmdVerdict | null = null;
  readonly reasons: string[] = [];
  private options: Required<AmdOptions>;

  constructor(options: AmdOptions = {}) {
    this.options = { greetingMs: 2400, humanSilenceMs: 700, initialSilenceMs: 2500, maxMs: 6000, ...options };
  }

  get decided(): AmdVerdict | null {
    return this.verdict;
  }

  /** One frame: returns the verdict when it is reached (once). */
  push(frameMs: number, isSpeech: boolean, beep: boolean): AmdVerdict | null {
    if (this.verdict) return null;
    this.elapsed += frameMs;
    if (beep) return this.decide("machine", "beep");
    if (isSpeech) {
      this.heardSpeech = true;
      this.speechMs += frameMs;
      this.silenceAfterSpeech = 0;
      // Short pauses between a greeting's words do not reset it.
      if (this.speechMs >= this.options.greetingMs) return this.decide("machine", `speech for ${this.speechMs} ms`);
      return null;
    }
    if (this.heardSpeech) {
      this.silenceAfterSpeech += frameMs;
      if (this.silenceAfterSpeech >= this.options.humanSilenceMs && this.speechMs < this.options.greetingMs) {
        return this.decide("human", `short greeting (${this.speechMs} ms) then silence`);
      }
    } else if (this.elapsed >= this.options.initialSilenceMs) {
      return this.decide("human", "silent pickup");
    }
    if (this.elapsed >= this.options.maxMs) return this.decide("human", "undecided after the time limit");
    return null;
  }

  private decide(verdict: AmdVerdict, reason: string): AmdVerdict {
    this.verdict = verdict;
    this.reasons.push(reason);
    return verdict;
  }
}
