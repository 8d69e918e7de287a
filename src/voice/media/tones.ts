// Tones: a generator (DTMF, test signals, the simulated voicemail greeting's beep) and the beep
// detector answering-machine detection waits on: a sustained single tone (typically 800–2000 Hz,
// ≥ 150–200 ms) of steady frequency that carries nearly all of the signal's energy.
//
// Every 10 ms the detector looks at the last 30 ms. Least squares on the recurrence a sine obeys,
// x[n] = c·x[n−1] − x[n−2] with c = 2·cos(2πf/fs), gives the frequency in one pass (no FFT); the
// Goertzel power at that frequency then says what share of the energy the tone holds. 30 ms
// resolves a voice's harmonics (~100–250 Hz apart), so a vowel or a dual tone (DTMF) holds a much
// smaller share than a beep; a voice's drifting pitch also fails the steadiness test.
import { goertzelCoefficient, goertzelPower } from "./goertzel.ts";

export interface ToneOptions {
  sampleRate: number;
  /** Peak amplitude of each component in dBFS. Default −10 dBFS. */
  amplitudeDbfs?: number;
  /** Raised-cosine fade in and out, against clicks. Default 2 ms. */
  rampMs?: number;
}

/** `durationMs` of the sum of sines at `frequencies` (one for a beep, two for DTMF). */
export function generateTone(frequencies: number | readonly number[], durationMs: number, options: ToneOptions): Int16Array {
  const { sampleRate } = options;
  const list = typeof frequencies === "number" ? [frequencies] : frequencies;
  const amplitude = 32767 * Math.pow(10, (options.amplitudeDbfs ?? -10) / 20);
  const length = Math.round((durationMs * sampleRate) / 1000);
  const ramp = Math.min(Math.floor(length / 2), Math.round(((options.rampMs ?? 2) * sampleRate) / 1000));
  const out = new Int16Array(length);
  for (let i = 0; i < length; i++) {
    let value = 0;
    for (const frequency of list) value += Math.sin((2 * Math.PI * frequency * i) / sampleRate);
    const edge = Math.min(i, length - 1 - i);
    const envelope = edge < ramp ? 0.5 - 0.5 * Math.cos((Math.PI * edge) / ramp) : 1;
    const sample = Math.round(value * amplitude * envelope);
    out[i] = sample > 32767 ? 32767 : sample < -32768 ? -32768 : sample;
  }
  return out;
}

export interface BeepDetectorOptions {
  sampleRate: number;
  /** Frequency band a beep may have. Default 750–2100 Hz. */
  minFrequencyHz?: number;
  maxFrequencyHz?: number;
  /** Shortest tone that counts. Default 160 ms. */
  minDurationMs?: number;
  /** Quietest tone that counts (RMS). Default −40 dBFS. */
  minLevelDbfs?: number;
  /** Share of the energy the tone must hold (0–1). Default 0.9 (10 dB above everything else). */
  minPurity?: number;
  /** How far a window's frequency may stray from the tone's running mean. Default 2% (at least 15 Hz). */
  frequencyTolerance?: number;
}

export interface BeepEvent {
  frequencyHz: number;
  /** Stream times (ms since the first pushed sample), to within ~10 ms. */
  startMs: number;
  endMs: number;
  durationMs: number;
}

const NO_BEEPS: readonly BeepEvent[] = Object.freeze([]);
/** Hops per analysis window: 10 ms steps over 30 ms. */
const WINDOW_HOPS = 3;
/** Windows that may fail inside a tone (noise bursts, codec glitches) before it counts as ended. */
const MAX_MISSED_WINDOWS = 1;

export class BeepDetector {
  readonly sampleRate: number;
  private readonly hopSamples: number;
  private readonly minFrequencyHz: number;
  private readonly maxFrequencyHz: number;
  private readonly minDurationSamples: number;
  private readonly minMeanSquare: number;
  private readonly minPurity: number;
  private readonly tolerance: number;
  /** The last 30 ms, oldest first once `filled` reaches a hop (shifted a hop at a time). */
  private readonly window: Float64Array;
  private filled: number;
  /** Stream position (samples) of the end of the window. */
  private position = 0;
  // The tone being followed: where it began and ended, the sum and count of its window frequencies.
  private runStart = -1;
  private runEnd = 0;
  private runFrequencySum = 0;
  private runWindows = 0;
  private missed = 0;

  constructor(options: BeepDetectorOptions) {
    this.sampleRate = options.sampleRate;
    this.hopSamples = Math.round(options.sampleRate / 100);
    this.minFrequencyHz = options.minFrequencyHz ?? 750;
    this.maxFrequencyHz = options.maxFrequencyHz ?? 2100;
    this.minDurationSamples = Math.round(((options.minDurationMs ?? 160) * options.sampleRate) / 1000);
    this.minMeanSquare = 32768 * 32768 * Math.pow(10, (options.minLevelDbfs ?? -40) / 10);
    this.minPurity = options.minPurity ?? 0.9;
    this.tolerance = options.frequencyTolerance ?? 0.02;
    this.window = new Float64Array(this.hopSamples * WINDOW_HOPS);
    // The window starts as silence; new samples fill its last hop.
    this.filled = this.window.length - this.hopSamples;
  }

  /** Feeds audio of any length; returns the beeps that ended in it (usually none). */
  push(pcm: Int16Array): readonly BeepEvent[] {
    let events: BeepEvent[] | null = null;
    const window = this.window;
    for (let i = 0; i < pcm.length; i++) {
      window[this.filled++] = pcm[i];
      if (this.filled < window.length) continue;
      this.position += this.hopSamples;
      const event = this.analyse();
      if (event) (events ??= []).push(event);
      window.copyWithin(0, this.hopSamples);
      this.filled = window.length - this.hopSamples;
    }
    return events ?? NO_BEEPS;
  }

  /** Ends the stream: a tone still sounding counts if it is long enough. */
  finish(): BeepEvent | null {
    return this.endRun();
  }

  private analyse(): BeepEvent | null {
    const frequency = this.toneFrequency();
    // The tone's share of a window is about the share of the window it fills, so only windows
    // (nearly) inside it qualify: the first one's start and the last one's end bound the tone.
    const windowStart = this.position - this.window.length;
    if (frequency !== null && this.runStart >= 0) {
      const mean = this.runFrequencySum / this.runWindows;
      if (Math.abs(frequency - mean) <= Math.max(15, mean * this.tolerance)) {
        this.runEnd = this.position;
        this.runFrequencySum += frequency;
        this.runWindows++;
        this.missed = 0;
        return null;
      }
    } else if (frequency === null && this.runStart >= 0 && this.missed < MAX_MISSED_WINDOWS) {
      this.missed++;
      return null;
    }
    // The tone (if any) has ended; a good window of another frequency starts the next candidate.
    const event = this.endRun();
    if (frequency !== null) {
      this.runStart = windowStart;
      this.runEnd = this.position;
      this.runFrequencySum = frequency;
      this.runWindows = 1;
    }
    return event;
  }

  private endRun(): BeepEvent | null {
    const { runStart, runEnd } = this;
    const frequencyHz = this.runWindows > 0 ? this.runFrequencySum / this.runWindows : 0;
    this.runStart = -1;
    this.runWindows = 0;
    this.runFrequencySum = 0;
    this.missed = 0;
    if (runStart < 0 || runEnd - runStart < this.minDurationSamples) return null;
    const toMs = (samples: number) => (samples * 1000) / this.sampleRate;
    return { frequencyHz: Math.round(frequencyHz), startMs: toMs(runStart), endMs: toMs(runEnd), durationMs: toMs(runEnd - runStart) };
  }

  /** The window's tone frequency, or null when it is not one loud, pure tone in the band. */
  private toneFrequency(): number | null {
    const x = this.window;
    const n = x.length;
    let energy = 0;
    for (let i = 0; i < n; i++) energy += x[i] * x[i];
    if (energy / n < this.minMeanSquare) return null;
    let cross = 0;
    let middle = 0;
    for (let i = 2; i < n; i++) {
      cross += x[i - 1] * (x[i] + x[i - 2]);
      middle += x[i - 1] * x[i - 1];
    }
    let c = cross / middle;
    if (!(c > -2 && c < 2)) return null;
    // Broadband noise pulls the fitted c toward 0 by S/(S+N); one correction with the noise the
    // fit leaves over (white noise passes its error filter with gain 2 + c²) undoes most of it.
    let residual = 0;
    for (let i = 2; i < n; i++) {
      const e = x[i] - c * x[i - 1] + x[i - 2];
      residual += e * e;
    }
    const noise = residual / (2 + c * c);
    if (middle - noise > 0) c = Math.max(-1.999999, Math.min(1.999999, cross / (middle - noise)));
    const frequency = (Math.acos(c / 2) * this.sampleRate) / (2 * Math.PI);
    if (frequency < this.minFrequencyHz || frequency > this.maxFrequencyHz) return null;
    // A sine of mean square m gives |X|² = m·N²/2 at its frequency.
    const toneMeanSquare = (2 * goertzelPower(x, 0, n, goertzelCoefficient(frequency, this.sampleRate))) / (n * n);
    return toneMeanSquare >= this.minPurity * (energy / n) ? frequency : null;
  }
}
