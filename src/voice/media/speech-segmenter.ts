// Turns per-frame speech/non-speech decisions (from the VAD) into utterances: `speech_start` once
// speech has lasted long enough not to be a click, `speech_end` once the caller has been quiet for
// the endpointing delay. A ring of recent audio gives the recogniser the audio from just before
// the detected start, so the first syllable is not clipped.

export interface SpeechSegmenterOptions {
  sampleRate: number;
  /** Speech needed before `speech_start` (ignores clicks and pops). Default 80 ms. */
  minSpeechMs?: number;
  /** Trailing silence that ends an utterance: the agent's endpointing delay. Default 600 ms. */
  endpointingMs?: number;
  /** Audio kept from before the first speech frame and handed over at `speech_start`. Default 300 ms. */
  preRollMs?: number;
}

export interface SpeechStartEvent {
  type: "speech_start";
  /** Stream time (ms since the first pushed sample) where the speech began. */
  atMs: number;
  /** Stream time at which it was recognised as speech (end of the frame that decided it). */
  detectedAtMs: number;
  /** Audio from up to `preRollMs` before `atMs` through `detectedAtMs`, for the recogniser. */
  audio: Int16Array;
}

export interface SpeechEndEvent {
  type: "speech_end";
  /** Stream time where the speech stopped (end of its last speech frame). */
  atMs: number;
  /** Stream time at which the endpointing delay ran out. */
  detectedAtMs: number;
  /** From the start of the utterance to `atMs`. */
  durationMs: number;
}

export type SpeechSegmentEvent = SpeechStartEvent | SpeechEndEvent;

export class SpeechSegmenter {
  readonly sampleRate: number;
  readonly minSpeechMs: number;
  readonly preRollMs: number;
  private endpointingSamples: number;
  private readonly minSpeechSamples: number;
  private readonly preRollSamples: number;
  /** Recent audio: the pre-roll plus the speech not yet confirmed. */
  private readonly ring: Int16Array;
  private ringWrite = 0;
  /** Samples pushed so far (the stream clock). */
  private position = 0;
  private inSpeech = false;
  /** Where the current run of speech frames began, and where the last speech frame ended. */
  private runStart = -1;
  private lastSpeechEnd = 0;
  private utteranceStart = 0;

  constructor(options: SpeechSegmenterOptions) {
    this.sampleRate = options.sampleRate;
    this.minSpeechMs = options.minSpeechMs ?? 80;
    this.preRollMs = options.preRollMs ?? 300;
    this.minSpeechSamples = this.samples(this.minSpeechMs);
    this.preRollSamples = this.samples(this.preRollMs);
    this.endpointingSamples = this.samples(options.endpointingMs ?? 600);
    // Room for the pre-roll, the confirming run and a frame of slack (frames up to 60 ms).
    this.ring = new Int16Array(this.preRollSamples + this.minSpeechSamples + this.samples(60));
  }

  get speaking(): boolean {
    return this.inSpeech;
  }

  get endpointingMs(): number {
    return (this.endpointingSamples * 1000) / this.sampleRate;
  }

  /** The agent may lengthen or shorten its patience mid-call (e.g. after asking for a number). */
  set endpointingMs(ms: number) {
    this.endpointingSamples = this.samples(ms);
  }

  /** Stream time of the next sample, in ms. */
  get nowMs(): number {
    return this.toMs(this.position);
  }

  /**
   * Feeds one frame and the VAD's verdict on it; returns the event it caused, if any (at most one
   * per frame). While `speaking`, the caller forwards each frame to the recogniser itself.
   */
  push(frame: Int16Array, isSpeech: boolean): SpeechSegmentEvent | null {
    const frameStart = this.position;
    this.remember(frame);
    this.position += frame.length;
    if (this.inSpeech) {
      if (isSpeech) {
        this.lastSpeechEnd = this.position;
        return null;
      }
      if (this.position - this.lastSpeechEnd < this.endpointingSamples) return null;
      this.inSpeech = false;
      this.runStart = -1;
      return {
        type: "speech_end",
        atMs: this.toMs(this.lastSpeechEnd),
        detectedAtMs: this.toMs(this.position),
        durationMs: this.toMs(this.lastSpeechEnd - this.utteranceStart),
      };
    }
    if (!isSpeech) {
      this.runStart = -1;
      return null;
    }
    if (this.runStart < 0) this.runStart = frameStart;
    this.lastSpeechEnd = this.position;
    if (this.position - this.runStart < this.minSpeechSamples) return null;
    this.inSpeech = true;
    this.utteranceStart = this.runStart;
    const from = Math.max(0, this.runStart - this.preRollSamples, this.position - this.ring.length);
    return {
      type: "speech_start",
      atMs: this.toMs(this.runStart),
      detectedAtMs: this.toMs(this.position),
      audio: this.recent(this.position - from),
    };
  }

  /** Back to silence, keeping the stream clock (e.g. after barge-in handling resets the turn). */
  reset(): void {
    this.inSpeech = false;
    this.runStart = -1;
  }

  private remember(frame: Int16Array): void {
    const ring = this.ring;
    let source = frame;
    if (source.length >= ring.length) source = source.subarray(source.length - ring.length);
    const first = Math.min(source.length, ring.length - this.ringWrite);
    ring.set(source.subarray(0, first), this.ringWrite);
    ring.set(source.subarray(first), 0);
    this.ringWrite = (this.ringWrite + source.length) % ring.length;
  }

  /** The last `count` samples pushed, oldest first. */
  private recent(count: number): Int16Array {
    const ring = this.ring;
    const out = new Int16Array(count);
    const start = (this.ringWrite - count + ring.length) % ring.length;
    const first = Math.min(count, ring.length - start);
    out.set(ring.subarray(start, start + first));
    out.set(ring.subarray(0, count - first), first);
    return out;
  }

  private samples(ms: number): number {
    return Math.round((ms * this.sampleRate) / 1000);
  }

  private toMs(samples: number): number {
    return (samples * 1000) / this.sampleRate;
  }
}
