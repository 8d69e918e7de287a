// A scripted caller for the conversation benchmark: it speaks its turns into a line as real audio,
// one 20 ms frame every 20 ms of wall time on the callers' shared clock (silence between words and
// turns, as a phone does), and
// listens at its ear: when each frame of the agent's voice arrived. Every measurement is made there.
import { FRAME_MS } from "../../../src/voice/media/frames.ts";
import { decodeMulaw, encodeMulaw } from "../../../src/voice/media/g711.ts";
import type { CallerTurn, Exchange, TurnKind } from "./corpus.ts";
import type { CallerLine } from "./lines.ts";
import { framePacer, type PacedCaller } from "./pacing.ts";
import { LONG_REPLY, SHORT_REPLY, spokenMs, type SlotVoice } from "./providers.ts";
import { FRAME_SAMPLES, isVoiced, msOf } from "./voice.ts";

/** Agent voice after this much quiet starts anew (an onset); a gap this long in it is a stop. */
const GAP_MS = 300;
/** A backchannel or an interruption begins this far into the agent's reply. */
const INTERJECT_AFTER_MS = 1200;
/** The agent is done when it was quiet this long (after a reply / after something said over it). */
const DONE_QUIET_MS = 1500;
const DONE_AFTER_INTERJECTION_MS = 3000;
/** No answer in this long and the turn is counted unanswered. */
const ANSWER_TIMEOUT_MS = 10_000;

/** What one caller turn measured, at the caller's ear. */
export interface TurnRecord {
  kind: TurnKind;
  text: string;
  /** From the end of the caller's last voiced frame to the agent's first voiced frame; null when the agent cut in or never answered. */
  latencyMs: number | null;
  answered: boolean;
  /** Each mid-utterance pause, and whether the agent's voice started in it (before the caller finished the turn). */
  pauses: { ms: number; cutIn: boolean }[];
  /**
   * Said over the agent: whether its audio stopped, when (after the interjection's first voiced frame),
   * whether it then answered (asked its model anew and spoke), and whether it went on with the reply it
   * was giving (resumed after a stop, or never stopped).
   */
  over?: { stopped: boolean; stopMs: number | null; replied: boolean; resumed: boolean } | { skipped: string };
}

/** A turn's audio: each part's PCM, its words and the silence after it. */
export interface RenderedTurn {
  turn: CallerTurn;
  parts: { pcm: Int16Array; text: string; pauseAfterMs: number }[];
}

/** Recognition's audio starts this long before the voice (Parley's pre-roll). */
const PRE_ROLL_MS = 300;

/** The turn from part `from` on, as the recogniser hears it: each part's speech, then the pause after it. */
function saying(rendered: RenderedTurn, from: number): SlotVoice["saying"] {
  const rest = rendered.parts.slice(from);
  const speechMs = rest.map((part, i) => (i === 0 ? PRE_ROLL_MS : 0) + msOf(part.pcm));
  return {
    segments: rest.map((part) => part.text),
    segmentMs: rest.map((part, i) => speechMs[i] + (i < rest.length - 1 ? part.pauseAfterMs : 1000)),
    speechMs,
  };
}

interface Queued {
  pcm: Int16Array;
  sent?: (at: number) => void;
}

const SILENCE = encodeMulaw(new Int16Array(FRAME_SAMPLES));

export class ScriptedCaller implements SlotVoice, PacedCaller {
  saying: SlotVoice["saying"] = null;
  readonly records: TurnRecord[] = [];
  private long = false;
  /** Replies the model was asked for on this caller's behalf. */
  private asked = 0;
  /** Arrival times (performance.now()) of the agent's voiced frames, in order. */
  private readonly voiced: number[] = [];
  private queue: Queued[] = [];
  /** Each part said so far: its words and when its voice began and ended (performance.now()). */
  private readonly spoken: { text: string; start: number; end: number }[] = [];

  constructor(private readonly line: CallerLine) {
    line.onAudio = (frame) => {
      if (isVoiced(decodeMulaw(frame))) this.voiced.push(performance.now());
    };
  }

  reply(): string {
    this.asked++;
    return this.long ? LONG_REPLY : SHORT_REPLY;
  }

  /** Of each part said, the words whose middle falls in [fromMs, toMs), its words spread evenly over its voice. */
  heard(fromMs: number, toMs: number): string {
    return this.spoken
      .flatMap(({ text, start, end }) => {
        const words = text.split(/\s+/).filter(Boolean);
        return words.filter((_, i) => {
          const middle = start + ((i + 0.5) / words.length) * (end - start);
          return middle >= fromMs && middle < toMs;
        });
      })
      .join(" ");
  }

  /** Waits for the agent's greeting to end, then plays each exchange; hangs up at the end. */
  async converse(exchanges: { turn: RenderedTurn; interjection: RenderedTurn | null; source: Exchange }[]): Promise<void> {
    framePacer.add(this);
    try {
      await this.until(() => this.voiced.length > 0 || undefined, ANSWER_TIMEOUT_MS);
      await this.quiet(DONE_QUIET_MS);
      for (const exchange of exchanges) await this.exchange(exchange.turn, exchange.interjection);
    } finally {
      framePacer.remove(this);
      await this.line.hangup();
    }
  }

  private async exchange(rendered: RenderedTurn, interjection: RenderedTurn | null): Promise<void> {
    this.long = interjection !== null;
    const spans = await this.say(rendered);
    const end = spans.at(-1)!.end;
    const pauses = rendered.parts.slice(0, -1).map((part, i) => ({ ms: part.pauseAfterMs, from: spans[i].end, cutIn: false }));
    // The agent's voice starting before the caller finished: a cut-in, in the pause it started after.
    for (const onset of this.onsets(spans[0].start, end)) {
      const pause = pauses.findLast((p) => p.from <= onset);
      if (pause) pause.cutIn = true;
    }
    const cutIn = pauses.some((p) => p.cutIn);
    const answer = await this.until(() => this.voicedFrom(end), ANSWER_TIMEOUT_MS);
    const record: TurnRecord = {
      kind: rendered.turn.kind,
      text: rendered.parts.map((p) => p.text).join(" … "),
      latencyMs: answer !== undefined && !cutIn ? answer - end : null,
      answered: answer !== undefined,
      pauses: pauses.map(({ ms, cutIn }) => ({ ms, cutIn })),
    };
    this.records.push(record);
    if (!interjection) return void (await this.quiet(DONE_QUIET_MS));
    const over: TurnRecord = { kind: interjection.turn.kind, text: interjection.parts.map((p) => p.text).join(" "), latencyMs: null, answered: false, pauses: [] };
    this.records.push(over);
    if (answer === undefined || cutIn) {
      over.over = { skipped: cutIn ? "the agent had cut in" : "the agent did not answer" };
      return void (await this.quiet(DONE_AFTER_INTERJECTION_MS));
    }
    await this.until(() => performance.now() >= answer + INTERJECT_AFTER_MS || undefined, ANSWER_TIMEOUT_MS);
    if (performance.now() - (this.voiced.at(-1) ?? 0) > 100) {
      over.over = { skipped: "the agent's reply had ended" };
      return void (await this.quiet(DONE_AFTER_INTERJECTION_MS));
    }
    this.long = false;
    const askedBefore = this.asked;
    const [said] = await this.say(interjection);
    await this.quiet(DONE_AFTER_INTERJECTION_MS);
    // Where the agent's voice first stops for GAP_MS after the interjection began.
    let last = this.voiced.findLast((t) => t < said.start) ?? said.start;
    for (const t of this.voiced) {
      if (t < said.start) continue;
      if (t - last >= GAP_MS) break;
      last = t;
    }
    const stopAt = last + FRAME_MS;
    // The reply would have run this long; a stop well before its end is the agent giving way.
    const stopped = stopAt < answer + spokenMs(LONG_REPLY) - 800;
    const spokeAfter = this.voiced.some((t) => t >= stopAt + GAP_MS);
    // A new reply is a new model request; voice after the stop without one is the same reply going on.
    const replied = stopped && spokeAfter && this.asked > askedBefore;
    over.over = { stopped, stopMs: stopped ? stopAt - said.start : null, replied, resumed: !stopped || (spokeAfter && !replied) };
  }

  /** Queues the turn's parts and pauses; resolves when all is sent, with when each part's voice began and ended. */
  private say(rendered: RenderedTurn): Promise<{ start: number; end: number }[]> {
    return new Promise((resolve) => {
      const spans: { start: number; end: number }[] = [];
      rendered.parts.forEach((part, index) => {
        const frames = part.pcm.length / FRAME_SAMPLES;
        for (let i = 0; i < frames; i++) {
          const queued: Queued = { pcm: part.pcm.subarray(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES) };
          if (i === 0) {
            queued.sent = (at) => {
              spans[index] = { start: at, end: at };
              this.saying = saying(rendered, index);
              this.spoken.push({ text: part.text, start: at, end: at + msOf(part.pcm) });
            };
          }
          if (i === frames - 1) {
            const previous = queued.sent;
            queued.sent = (at) => {
              previous?.(at);
              spans[index].end = at + FRAME_MS;
              if (index === rendered.parts.length - 1) resolve(spans);
            };
          }
          this.queue.push(queued);
        }
        for (let ms = 0; ms < part.pauseAfterMs; ms += FRAME_MS) this.queue.push({ pcm: new Int16Array(FRAME_SAMPLES) });
      });
    });
  }

  /** The first voiced arrival at or after `at` (a binary search: calls run for minutes). */
  private voicedFrom(at: number): number | undefined {
    let low = 0;
    let high = this.voiced.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (this.voiced[mid] < at) low = mid + 1;
      else high = mid;
    }
    return this.voiced[low];
  }

  /** Times the agent's voice started after GAP_MS of quiet, within [from, to). */
  private onsets(from: number, to: number): number[] {
    const out: number[] = [];
    let previous = -Infinity;
    for (const t of this.voiced) {
      if (t >= from && t < to && t - previous >= GAP_MS) out.push(t);
      previous = t;
    }
    return out;
  }

  private async quiet(ms: number): Promise<void> {
    await this.until(() => performance.now() - (this.voiced.at(-1) ?? 0) >= ms || undefined, 60_000);
  }

  private async until<T>(check: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value !== undefined) return value;
      if (performance.now() > deadline) return undefined;
      await Bun.sleep(FRAME_MS);
    }
  }

  /** The next queued frame, or silence; called every 20 ms by the shared pacer. */
  sendFrame(): void {
    const next = this.queue.shift();
    this.line.send(next ? encodeMulaw(next.pcm) : SILENCE);
    next?.sent?.(performance.now());
  }
}
