/** Keys arriving within this long of each other form one entry (or until `#`). */
export const DIGIT_GAP_MS = 1500;

/** Keys pressed that make one entry, and when the first of them came (call time, ms). */
export interface KeyedEntry {
  digits: string;
  startMs: number;
}

/** Gathers key presses into entries: `#` ends one at once, a pause of DIGIT_GAP_MS otherwise. */
export class DigitCollector {
  private digits = "";
  private firstAtMs = 0;
  private lastAtMs = 0;

  /** A key at call time `atMs`; returns the entry `#` completed, if any. */
  press(digit: string, atMs: number): KeyedEntry | null {
    if (digit === "#") return this.take();
    if (!this.digits) this.firstAtMs = atMs;
    this.digits += digit;
    this.lastAtMs = atMs;
    return null;
  }

  /** The entry the caller has stopped adding to, once the gap has passed. */
  due(nowMs: number): KeyedEntry | null {
    return this.digits && nowMs - this.lastAtMs >= DIGIT_GAP_MS ? this.take() : null;
  }

  private take(): KeyedEntry | null {
    if (!this.digits) return null;
    const entry = { digits: this.digits, startMs: this.firstAtMs };
    this.digits = "";
    return entry;
  }
}
