// DTMF (touch tones, ITU-T Q.23/Q.24): detection in the caller's audio and generation.
//
// Detection follows the classic design (as in spandsp): blocks of 102 samples at 8 kHz (12.75 ms;
// the eight frequencies then sit near nulls of each other's leakage), Goertzel power at each
// frequency, and a block "hits" a digit when its strongest row and column tones are loud enough,
// within the allowed twist, clear of their neighbours, carry three quarters of the block's energy
// and the column tone has no second harmonic to speak of (speech fails the last two: its energy is
// spread over formants and harmonics; at 60 % a synthesised "opening hours" was heard as a 2). A
// digit is reported when two blocks in a row hit it (≥ ~25 ms; Q.24 asks that 40 ms tones be caught)
// and is held until two blocks in a row say otherwise, so a held key or a dropout is one digit.
import { goertzelCoefficient, goertzelPower } from "./goertzel.ts";
import { concatPcm } from "./frames.ts";
import { generateTone } from "./tones.ts";

const ROW_HZ = [697, 770, 852, 941] as const;
const COLUMN_HZ = [1209, 1336, 1477, 1633] as const;
const KEYPAD = ["123A", "456B", "789C", "*0#D"] as const;

export type DtmfDigit = "0" | "1" | "2" | "3" | "4" | "5" | "6" | "7" | "8" | "9" | "*" | "#" | "A" | "B" | "C" | "D";

/** Block length at 8 kHz; scaled with the rate so the block stays 12.75 ms. */
const BLOCK_SAMPLES_8K = 102;
/**
 * Twist limits as in spandsp: lines lose more of the high group, so the low (row) tone may be up
 * to 8 dB stronger ("normal twist"), the high one only up to 4 dB ("reverse twist").
 */
const MAX_NORMAL_TWIST = Math.pow(10, 8 / 10);
const MAX_REVERSE_TWIST = Math.pow(10, 4 / 10);
/** The chosen tone of each group must beat the others of its group by 8 dB. */
const RELATIVE_PEAK = Math.pow(10, 8 / 10);
/** Share of the block's energy the two tones must carry together (speech spreads it over many frequencies). */
const MIN_TONE_SHARE = 0.75;
/**
 * A key's tones are pure; a voice is rich in harmonics. The second harmonic of each tone must stay
 * this far below the tone (−12 dB leaves room for µ-law's own distortion).
 */
const MAX_HARMONIC = Math.pow(10, -12 / 10);
/** Blocks in a row that must hear the same digit (2 × 12.75 ms: Q.24 rejects tones under ~23 ms, accepts 40 ms). */
const MIN_HIT_BLOCKS = 2;

export interface DtmfDetectorOptions {
  sampleRate: number;
  /** Quietest tone that counts, per tone (RMS dBFS). Default −36 dBFS (≈ −30 dBm0 on a µ-law line). */
  minToneDbfs?: number;
}

export interface DtmfEvent {
  digit: DtmfDigit;
  /** Stream time (ms since the first pushed sample) of the first block that heard it. */
  atMs: number;
}

const NO_DIGITS: readonly DtmfEvent[] = Object.freeze([]);

export class DtmfDetector {
  readonly sampleRate: number;
  private readonly blockSamples: number;
  private readonly rowCoefficients: Float64Array;
  private readonly columnCoefficients: Float64Array;
  private readonly columnHarmonics: Float64Array;
  /** Blocks in a row that heard `lastHit`. */
  private run = 0;
  /** Minimum |X|² of a tone in a block, from the level. */
  private readonly minTonePower: number;
  private readonly block: Float64Array;
  private filled = 0;
  private position = 0;
  /** What the previous block hit (digit index, −1 none) and where that block started. */
  private lastHit = -1;
  private lastHitAt = 0;
  /** The digit currently held down (−1 none), already reported. */
  private held = -1;
  private readonly row: Strongest = { index: 0, power: 0, runnerUp: 0 };
  private readonly column: Strongest = { index: 0, power: 0, runnerUp: 0 };

  constructor(options: DtmfDetectorOptions) {
    const { sampleRate } = options;
    this.sampleRate = sampleRate;
    this.blockSamples = Math.round((BLOCK_SAMPLES_8K * sampleRate) / 8000);
    this.rowCoefficients = Float64Array.from(ROW_HZ, (f) => goertzelCoefficient(f, sampleRate));
    this.columnCoefficients = Float64Array.from(COLUMN_HZ, (f) => goertzelCoefficient(f, sampleRate));
    this.columnHarmonics = Float64Array.from(COLUMN_HZ, (f) => goertzelCoefficient(Math.min(2 * f, sampleRate / 2 - 100), sampleRate));
    // A sine of mean square m over N samples gives |X|² = m·N²/2.
    const meanSquare = 32768 * 32768 * Math.pow(10, (options.minToneDbfs ?? -36) / 10);
    this.minTonePower = (meanSquare * this.blockSamples * this.blockSamples) / 2;
    this.block = new Float64Array(this.blockSamples);
  }

  /** Feeds audio of any length; returns digits newly pressed in it (usually none). */
  push(pcm: Int16Array): readonly DtmfEvent[] {
    let events: DtmfEvent[] | null = null;
    for (let i = 0; i < pcm.length; i++) {
      this.block[this.filled++] = pcm[i];
      if (this.filled < this.blockSamples) continue;
      this.filled = 0;
      const hit = this.classify();
      this.run = hit === this.lastHit ? this.run + 1 : 1;
      // A new digit needs MIN_HIT_BLOCKS blocks of it; letting go needs two blocks of something else.
      if (hit !== this.lastHit) this.lastHitAt = this.position;
      if (hit !== this.held && this.run >= 2) {
        if (hit >= 0 && this.run >= MIN_HIT_BLOCKS) {
          this.held = hit;
          (events ??= []).push({ digit: KEYPAD[hit >> 2][hit & 3] as DtmfDigit, atMs: (this.lastHitAt * 1000) / this.sampleRate });
        } else if (hit < 0 || this.held >= 0) this.held = -1;
      }
      this.lastHit = hit;
      this.position += this.blockSamples;
    }
    return events ?? NO_DIGITS;
  }

  /** The digit index (row × 4 + column) this block holds, or −1. */
  private classify(): number {
    const x = this.block;
    const n = x.length;
    let energy = 0;
    for (let i = 0; i < n; i++) energy += x[i] * x[i];
    // Two tones each at the minimum level carry at least this much.
    if ((energy * n) / 2 < 2 * this.minTonePower) return -1;
    const row = strongest(x, this.rowCoefficients, this.row);
    const column = strongest(x, this.columnCoefficients, this.column);
    if (row.power < this.minTonePower || column.power < this.minTonePower) return -1;
    if (row.power > column.power * MAX_NORMAL_TWIST || column.power > row.power * MAX_REVERSE_TWIST) return -1;
    if (row.power < row.runnerUp * RELATIVE_PEAK || column.power < column.runnerUp * RELATIVE_PEAK) return -1;
    // |X|² → mean square is ×2/N²; the block's mean square is energy/N.
    if ((2 * (row.power + column.power)) / (n * n) < MIN_TONE_SHARE * (energy / n)) return -1;
    // The column tone's harmonic (2.4–3.3 kHz) lies clear of every key tone; a row tone's would sit
    // next to the column tones (2 × 697 Hz is 58 Hz from 1336 Hz), so only the column's is checked.
    if (goertzelPower(x, 0, n, this.columnHarmonics[column.index]) > column.power * MAX_HARMONIC) return -1;
    return row.index * 4 + column.index;
  }
}

interface Strongest {
  index: number;
  power: number;
  runnerUp: number;
}

/** Fills `into` (reused, so blocks allocate nothing) with the loudest of `coefficients`' tones. */
function strongest(x: Float64Array, coefficients: Float64Array, into: Strongest): Strongest {
  let index = 0;
  let power = -1;
  let runnerUp = 0;
  for (let i = 0; i < coefficients.length; i++) {
    const p = goertzelPower(x, 0, x.length, coefficients[i]);
    if (p > power) {
      runnerUp = Math.max(runnerUp, power);
      power = p;
      index = i;
    } else if (p > runnerUp) {
      runnerUp = p;
    }
  }
  into.index = index;
  into.power = power;
  into.runnerUp = runnerUp;
  return into;
}

export interface DtmfToneOptions {
  sampleRate: number;
  /** Default 80 ms tone, 60 ms silence after it. */
  toneMs?: number;
  gapMs?: number;
  /** Peak amplitude of each of the two tones. Default −10 dBFS. */
  amplitudeDbfs?: number;
}

export function isDtmfDigit(value: string): value is DtmfDigit {
  return value.length === 1 && "0123456789*#ABCD".includes(value);
}

/** PCM for `digits` ("0"–"9", "*", "#", "A"–"D"): each a dual tone followed by a gap. */
export function generateDtmf(digits: string, options: DtmfToneOptions): Int16Array {
  const toneMs = options.toneMs ?? 80;
  const gapSamples = Math.round(((options.gapMs ?? 60) * options.sampleRate) / 1000);
  const parts: Int16Array[] = [];
  for (const digit of digits.toUpperCase()) {
    if (!isDtmfDigit(digit)) throw new RangeError(`not a DTMF digit: ${JSON.stringify(digit)}`);
    const row = KEYPAD.findIndex((keys) => keys.includes(digit));
    const column = KEYPAD[row].indexOf(digit);
    parts.push(generateTone([ROW_HZ[row], COLUMN_HZ[column]], toneMs, { sampleRate: options.sampleRate, amplitudeDbfs: options.amplitudeDbfs, rampMs: 1 }));
    parts.push(new Int16Array(gapSamples));
  }
  return concatPcm(parts);
}
