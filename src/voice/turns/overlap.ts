import { BACKCHANNEL_PAIRS, BACKCHANNEL_STARTS, BACKCHANNEL_WORDS, HESITATIONS, STOP_PHRASES, STOP_WORDS, words } from "./cues.ts";

// Caller speech while the agent talks: a backchannel ("mm-hmm", "okay") lets the agent go on, an
// interruption takes the floor. Judged by duration, words and what they are, on each partial.

export type Sensitivity = "low" | "medium" | "high";
export interface OverlapInput {
  /** What the recogniser has heard of the caller's overlapping speech so far; "" if nothing yet. */
  text: string;
  /** Voiced time of that speech so far, ms. */
  speechMs: number;
  /** The caller has stopped speaking (text is then the whole of it). */
  ended: boolean;
  sensitivity: Sensitivity;
}
export type OverlapVerdict = "backchannel" | "interruption" | "pending";
export interface OverlapJudgement {
  verdict: OverlapVerdict;
  reason: string;
  /** Pending on backchannel words only so far ("mm-hmm" while it is said): the agent need not pause for it. */
  backchannelSoFar?: boolean;
}

interface Limits {
  /** Longer than this, backchannel words are a turn of their own ("yeah, yeah, okay, right…"). */
  backchannelMs: number;
  /** Words that are not backchannels: this many interrupt while the caller still speaks. */
  words: number;
  /** … or this much speech with at least one of them. */
  wordsMs: number;
  /** … and this many once the caller has stopped (low lets a lone "huh" or "thanks" pass). */
  endedWords: number;
  /** Speech with no words from the recogniser: an interruption after this long. */
  noWordsMs: number;
}
const LIMITS: Record<Sensitivity, Limits> = {
  low: { backchannelMs: 1500, words: 3, wordsMs: 1200, endedWords: 2, noWordsMs: 1500 },
  medium: { backchannelMs: 1200, words: 2, wordsMs: 800, endedWords: 1, noWordsMs: 1000 },
  high: { backchannelMs: 800, words: 1, wordsMs: 500, endedWords: 1, noWordsMs: 700 },
};
/** Shorter than this with no words at its end: a cough, a click, the line. */
const NOISE_MS = 300;

/**
 * The verdict on caller speech over the agent, in this order:
 * - a stop cue anywhere ("wait", "no", "hold on", "excuse me", "but"…) → interruption at once;
 * - no words yet: pending; an interruption from the sensitivity's no-words limit on (long speech the
 *   recogniser has not put into words is not a backchannel); ended under 300 ms → backchannel (noise);
 * - only backchannel tokens (hesitations "um"/"uh" count as nothing, and a last word that may start
 *   one, "got" of "got it", waits while the caller speaks): pending, backchannel once ended, an
 *   interruption past the sensitivity's backchannel length;
 * - other words: an interruption at their count or speech limit; once ended, at endedWords of them;
 *   otherwise pending, or backchannel once ended (low sensitivity lets one such word pass).
 */
export function classifyOverlap(input: OverlapInput): OverlapJudgement {
  const limits = LIMITS[input.sensitivity];
  const ws = words(input.text);
  const stop = stopCue(ws);
  if (stop) return { verdict: "interruption", reason: `stop cue '${stop}'` };
  if (ws.length === 0) {
    if (input.speechMs >= limits.noWordsMs) return { verdict: "interruption", reason: `${seconds(input.speechMs)} of speech, no words` };
    if (input.ended && input.speechMs < NOISE_MS) return { verdict: "backchannel", reason: "noise" };
    return { verdict: "pending", reason: "no words yet" };
  }
  const others = nonBackchannelWords(ws, input.ended);
  if (others === 0) {
    if (input.speechMs > limits.backchannelMs) return { verdict: "interruption", reason: `${seconds(input.speechMs)} of backchannel words` };
    return input.ended ? { verdict: "backchannel", reason: `backchannel '${quote(input.text)}'` } : { verdict: "pending", reason: "backchannel so far", backchannelSoFar: true };
  }
  if (others >= limits.words) return { verdict: "interruption", reason: plural(others, "word") };
  if (input.speechMs >= limits.wordsMs) return { verdict: "interruption", reason: `${seconds(input.speechMs)} of speech` };
  if (!input.ended) return { verdict: "pending", reason: `${plural(others, "word")} so far` };
  if (others >= limits.endedWords) return { verdict: "interruption", reason: plural(others, "word") };
  return { verdict: "backchannel", reason: `${plural(others, "word")} on ${input.sensitivity} sensitivity` };
}

/** The first stop cue among the words, or null. */
function stopCue(ws: string[]): string | null {
  for (let i = 0; i < ws.length; i++) {
    if (STOP_WORDS.has(ws[i])) return ws[i];
    if (i + 1 < ws.length) {
      const two = `${ws[i]} ${ws[i + 1]}`;
      if (STOP_PHRASES.has(two)) return two;
      if (i + 2 < ws.length && STOP_PHRASES.has(`${two} ${ws[i + 2]}`)) return `${two} ${ws[i + 2]}`;
    }
  }
  return null;
}

/** Words that are neither backchannels nor hesitations; a last word that may start a backchannel counts only once the caller stops. */
function nonBackchannelWords(ws: string[], ended: boolean): number {
  let others = 0;
  for (let i = 0; i < ws.length; i++) {
    if (i + 1 < ws.length && BACKCHANNEL_PAIRS.has(`${ws[i]} ${ws[i + 1]}`)) i++;
    else if (BACKCHANNEL_WORDS.has(ws[i]) || HESITATIONS.has(ws[i])) continue;
    else if (!ended && i === ws.length - 1 && BACKCHANNEL_STARTS.has(ws[i])) continue;
    else others++;
  }
  return others;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;
const quote = (text: string) => text.trim().toLowerCase().replace(TRAILING_MARKS, "");
const TRAILING_MARKS = /[\s.,!?;:…]+$/;
