// A caller who pauses mid-sentence and talks over the agent, for turn-taking tests: its words as Flite
// speech with the silences its script gives, placed on the caller's audio timeline (a softphone's, or
// a WAV file's that baresip plays), and what the Deepgram fake hears of it at any moment, so interim
// results reveal the words as they are said and a recognition started after a cut hears the rest.
import { rmsDbfs } from "../../src/voice/media/frames.ts";
import { encodeWav } from "../../src/voice/media/wav-format.ts";
import type { TimedScript } from "./fake-speech/deepgram.ts";
import { speech, type Softphone } from "./softphone.ts";

/** What the agents of the turn-taking call tests greet with, and the ten-second reply callers talk over. */
export const GREETING = "Hello, how can I help?";
export const LONG_REPLY = "We sell kitchen blenders in three sizes. The small one is for smoothies and soups. The large one crushes ice in seconds. Every model carries a two year warranty, and delivery is free.";
/** The new agents' turn-taking defaults, spelt out: each test or control changes one thing from here. */
export const HUMAN_TURN_TAKING = {
  endpointing_ms: 600,
  endpointing: { mode: "dynamic", min_delay_ms: 300, max_delay_ms: 2000 },
  preemptive_generation: true,
  interruptions: { enabled: true, min_speech_ms: 200, sensitivity: "medium", backchannels: "ignore" },
};

const RATE = 8000;
const FRAME = RATE / 50;
/** Parley's recognition starts this long before the voice (the speech segmenter's pre-roll). */
const PRE_ROLL_MS = 300;
/** What the recogniser is told follows a caller's last words (silence until Parley ends the utterance). */
const TAIL_MS = 3000;

/** One stretch of speech and the silence after it; an utterance is one or more of them. */
export interface SpokenPart {
  text: string;
  pcm: Int16Array;
  pauseAfterMs: number;
}

export interface PlacedPart extends SpokenPart {
  /** Where its voice starts and ends on the caller's audio timeline (ms). */
  startMs: number;
  endMs: number;
}

/** `utterance("I would like to book", 1000, "a table for Friday.")`: the words as Flite says them, each number a pause after the words before it. */
export async function utterance(...script: (string | number)[]): Promise<SpokenPart[]> {
  const parts: SpokenPart[] = [];
  for (const item of script) {
    if (typeof item === "number") parts[parts.length - 1].pauseAfterMs += item;
    else parts.push({ text: item, pcm: voiced(await speech(item, RATE)), pauseAfterMs: 0 });
  }
  return parts;
}

/** From the first voiced frame to the last: the silence Flite puts around words is not the caller's pause. */
function voiced(pcm: Int16Array): Int16Array {
  const loud = (i: number) => rmsDbfs(pcm.subarray(i * FRAME, (i + 1) * FRAME)) > -45;
  const frames = Math.floor(pcm.length / FRAME);
  let first = 0;
  let last = frames - 1;
  while (first < last && !loud(first)) first++;
  while (last > first && !loud(last)) last--;
  return pcm.slice(first * FRAME, (last + 1) * FRAME);
}

const msOf = (pcm: Int16Array) => Math.round((pcm.length / RATE) * 1000);

/** The caller's utterances where they sit on its audio timeline. */
export class CallerTimeline {
  private readonly utterances: PlacedPart[][] = [];

  /** Places an utterance's parts one after another from `atMs`; returns them placed. */
  place(parts: SpokenPart[], atMs: number): PlacedPart[] {
    let at = atMs;
    const placed = parts.map((part) => {
      const spot = { ...part, startMs: at, endMs: at + msOf(part.pcm) };
      at = spot.endMs + part.pauseAfterMs;
      return spot;
    });
    this.utterances.push(placed);
    return placed;
  }

  /**
   * What a recognition started at `nowMs` hears, for the Deepgram fake: the part being said then and
   * the rest of its utterance, each segment as long as its speech and the pause after it. A recognition
   * opens once the voice has started; `nowMs` may run a little behind (a SIP caller's clock starts when
   * baresip reports the call established), so a part starting up to the pre-roll later counts as begun.
   */
  saying(nowMs: number): TimedScript {
    for (const parts of [...this.utterances].reverse()) {
      const from = parts.findLastIndex((part) => part.startMs <= nowMs + PRE_ROLL_MS);
      if (from < 0) continue;
      const rest = parts.slice(from);
      const speechMs = rest.map((part, i) => (i === 0 ? PRE_ROLL_MS : 0) + msOf(part.pcm));
      return { segments: rest.map((part) => part.text), segmentMs: rest.map((part, i) => speechMs[i] + (i < rest.length - 1 ? part.pauseAfterMs : TAIL_MS)), speechMs };
    }
    return { segments: [], segmentMs: [] };
  }

  /**
   * What a batch recogniser (Whisper) writes for an upload of the caller's audio from `fromMs` to
   * `toMs`: the words of each part said in it, a part cut by the upload's end in proportion to its
   * speech heard (as the Deepgram fake's interims reveal them), joined as one text.
   */
  heardIn(fromMs: number, toMs: number): string {
    const words: string[] = [];
    for (const part of this.utterances.flat()) {
      if (part.endMs <= fromMs || part.startMs >= toMs) continue;
      const all = part.text.split(/\s+/);
      words.push(...all.slice(0, Math.round(all.length * Math.min(1, (toMs - part.startMs) / Math.max(1, part.endMs - part.startMs)))));
    }
    return words.join(" ");
  }

  /** Every utterance as one 8 kHz WAV of `totalMs` (what baresip plays into the call from its answer). */
  wav(totalMs: number): Uint8Array {
    const pcm = new Int16Array(Math.round((totalMs / 1000) * RATE));
    for (const part of this.utterances.flat()) pcm.set(part.pcm.subarray(0, Math.max(0, pcm.length - (part.startMs / 1000) * RATE)), Math.round((part.startMs / 1000) * RATE));
    return encodeWav(pcm, { sampleRate: RATE, channels: 1 });
  }
}

/** The softphone says the utterance after what it has queued (its pauses as silence); returns the parts placed on its timeline. */
export function speakInto(phone: Softphone, timeline: CallerTimeline, parts: SpokenPart[]): PlacedPart[] {
  const placed = timeline.place(parts, (phone.sentFrames + phone.queued) * 20);
  for (const part of parts) {
    phone.speak(part.pcm);
    if (part.pauseAfterMs) phone.speak(new Int16Array(Math.round((part.pauseAfterMs / 1000) * RATE)));
  }
  return placed;
}
