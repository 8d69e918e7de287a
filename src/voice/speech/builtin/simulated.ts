// NOT speech recognition. On simulated calls the simulated callee already knows what it said, so
// it announces each utterance (text + where it sits on the call's audio timeline) and this engine
// "recognises" a session by returning the announced text its audio overlaps, and gives partial
// hypotheses as its audio covers more of it. Deterministic tests of the conversation loop use it; it
// never listens to the audio itself.
import type { RecognitionOptions, RecognitionSession, SpeechToText, Transcript } from "../types.ts";

export interface SimulatedUtterance {
  text: string;
  /** Span on the call's inbound audio timeline, in ms from the first inbound sample. */
  startMs: number;
  endMs: number;
}

/** An utterance counts for a session if they share this much audio (or half the utterance). */
const MIN_OVERLAP_MS = 100;

/** What each simulated callee has said, by call id. */
export class SimulatedUtteranceRegistry {
  private readonly calls = new Map<string, SimulatedUtterance[]>();

  announce(callId: string, text: string, startMs: number, endMs: number): void {
    if (!(endMs > startMs)) throw new RangeError(`an utterance must end after it starts (${startMs}–${endMs} ms)`);
    const utterances = this.calls.get(callId) ?? [];
    utterances.push({ text, startMs, endMs });
    this.calls.set(callId, utterances);
  }

  /** The call's utterances that share enough audio with [startMs, endMs), in spoken order. */
  overlapping(callId: string, startMs: number, endMs: number): SimulatedUtterance[] {
    return (this.calls.get(callId) ?? [])
      .filter((utterance) => {
        const shared = Math.min(endMs, utterance.endMs) - Math.max(startMs, utterance.startMs);
        return shared > 0 && shared >= Math.min(MIN_OVERLAP_MS, (utterance.endMs - utterance.startMs) / 2);
      })
      .sort((a, b) => a.startMs - b.startMs);
  }

  /** Drops a finished call's utterances. */
  forget(callId: string): void {
    this.calls.delete(callId);
  }
}

/** The process-wide registry the simulated carrier announces into. */
export const simulatedUtterances = new SimulatedUtteranceRegistry();

/** Called by the simulated callee as it speaks: `text` occupies [startMs, endMs) of the call's audio. */
export function announceUtterance(callId: string, text: string, startMs: number, endMs: number): void {
  simulatedUtterances.announce(callId, text, startMs, endMs);
}

/** What the simulated recogniser needs beyond the usual options. */
export interface SimulatedRecognitionOptions extends RecognitionOptions {
  /** The simulated call whose inbound audio this session receives; required. */
  callId?: string;
  /** Where the session's first written sample sits on that call's inbound timeline (ms); default 0. */
  startedAtMs?: number;
}

/** Audio between two partial hypotheses, as Deepgram's interims and PocketSphinx's partials. */
const PARTIAL_EVERY_MS = 100;

export class SimulatedRecogniser implements SpeechToText {
  readonly id = "simulated";

  constructor(private readonly registry: SimulatedUtteranceRegistry = simulatedUtterances) {}

  start(options: SimulatedRecognitionOptions): RecognitionSession {
    const { callId } = options;
    if (!callId) throw new Error("the simulated recogniser only works on simulated calls: pass callId");
    if (!(options.sampleRate > 0)) throw new RangeError(`sampleRate must be positive, got ${options.sampleRate}`);
    const registry = this.registry;
    const startedAtMs = options.startedAtMs ?? 0;
    const partialEvery = (options.sampleRate * PARTIAL_EVERY_MS) / 1000;
    let samples = 0;
    let sinceHypothesis = 0;
    let lastPartial = "";
    let ended = false;
    const heardUntilMs = () => startedAtMs + (samples / options.sampleRate) * 1000;
    const session: RecognitionSession = {
      write(pcm: Int16Array) {
        if (ended) return;
        samples += pcm.length;
        sinceHypothesis += pcm.length;
        if (!session.onPartial || sinceHypothesis < partialEvery) return;
        sinceHypothesis = 0;
        const text = wordsHeard(registry.overlapping(callId, startedAtMs, heardUntilMs()), heardUntilMs());
        if (!text || text === lastPartial) return;
        lastPartial = text;
        // Delivered after write() returns, as a real engine's arrive from its socket or thread.
        queueMicrotask(() => {
          try {
            if (!ended) session.onPartial?.(text);
          } catch {
            // A listener's bug must not break recognition.
          }
        });
      },
      async finish(): Promise<Transcript> {
        ended = true;
        const text = registry.overlapping(callId, startedAtMs, heardUntilMs()).map((utterance) => utterance.text).join(" ");
        return { text, confidence: text ? 1 : null };
      },
      abort() {
        ended = true;
      },
    };
    return session;
  }
}

/**
 * A partial hypothesis at `untilMs`: of each utterance, the words whose middle has been heard, taking
 * its words as evenly spread over its span (the final result has them all).
 */
function wordsHeard(utterances: SimulatedUtterance[], untilMs: number): string {
  return utterances
    .flatMap((utterance) => {
      const words = utterance.text.split(/\s+/).filter(Boolean);
      const fraction = Math.min(1, (untilMs - utterance.startMs) / (utterance.endMs - utterance.startMs));
      return words.slice(0, Math.floor(fraction * words.length + 0.5));
    })
    .join(" ");
}
