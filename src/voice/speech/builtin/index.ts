// The speech engines that need no external service: Flite for speaking (embedded in the
// executable), PocketSphinx for listening (carried by an executable built where it was installed, else
// from the OS packages), and the simulated recogniser for simulated calls. One shared instance of
// each, so decoders and the Flite instance are pooled process-wide.
import type { SpeechToText, Voice } from "../types.ts";
import { FliteTextToSpeech, fliteVoices } from "./flite.ts";
import { PocketsphinxRecogniser } from "./pocketsphinx.ts";
import { SimulatedRecogniser } from "./simulated.ts";

export { DEFAULT_FLITE_VOICE as DEFAULT_BUILTIN_VOICE, warmUpFlite } from "./flite.ts";
export { pocketsphinxAvailability, POCKETSPHINX_INSTALL, POCKETSPHINX_MODELS, usePocketsphinxCache, type PocketsphinxModel } from "./pocketsphinx.ts";
export { announceUtterance, simulatedUtterances, type SimulatedRecognitionOptions } from "./simulated.ts";
export { FliteTextToSpeech, PocketsphinxRecogniser, SimulatedRecogniser };

export type BuiltinRecogniserId = "builtin:pocketsphinx" | "simulated";

let tts: FliteTextToSpeech | null = null;
let pocketsphinx: PocketsphinxRecogniser | null = null;
let simulated: SimulatedRecogniser | null = null;

export type BuiltinRecognitionSpeed = "accurate" | "fast";
/**
 * PocketSphinx options per speed. `fast` caps the search at 3,000 active HMMs a frame (the library's
 * default is 30,000): on Flite speech at 8 and 16 kHz, 37% less CPU per talking caller for 1.2 points
 * more word errors (16.7% vs 15.5%), and 4 callers talking at once on 2 cores got their replies'
 * words in 0.5-1.8 s instead of ~2 s (scripts/bench/builtin-calls.ts --recognition fast).
 */
const RECOGNITION_ARGS: Record<BuiltinRecognitionSpeed, string[]> = { accurate: [], fast: ["-maxhmmpf", "3000"] };
let recognitionSpeed: BuiltinRecognitionSpeed = "accurate";

export function builtinRecognitionArgs(speed: BuiltinRecognitionSpeed): string[] {
  return RECOGNITION_ARGS[speed];
}

/** The operator's `--builtin-recognition`; decoders made before a change are let go (the rest finish their utterances). */
export function setBuiltinRecognitionSpeed(speed: BuiltinRecognitionSpeed): void {
  if (speed === recognitionSpeed) return;
  recognitionSpeed = speed;
  pocketsphinx?.close();
  pocketsphinx = null;
}

/**
 * The built-in voice engine (`builtin:flite`). `_cacheDir` is accepted for symmetry with the
 * other native pieces but unused: Flite runs from bytes embedded in the executable.
 */
export function builtinTts(_cacheDir?: string): FliteTextToSpeech {
  return (tts ??= new FliteTextToSpeech());
}

/**
 * A built-in recogniser by id. `builtin:pocketsphinx` needs its carried copy or the OS packages (its
 * start() throws SpeechUnavailable saying what is missing); `simulated` only works on simulated calls.
 */
export function builtinStt(id?: "builtin:pocketsphinx"): PocketsphinxRecogniser;
export function builtinStt(id: "simulated"): SimulatedRecogniser;
export function builtinStt(id: BuiltinRecogniserId): SpeechToText;
export function builtinStt(id: BuiltinRecogniserId = "builtin:pocketsphinx"): SpeechToText {
  if (id === "simulated") return (simulated ??= new SimulatedRecogniser());
  return (pocketsphinx ??= new PocketsphinxRecogniser({ decoderArgs: builtinRecognitionArgs(recognitionSpeed) }));
}

/** Voices of the built-in engine, for the voices API and agent validation; the default is kal16. */
export function builtinVoices(): Voice[] {
  return fliteVoices();
}

export function isBuiltinVoice(voiceId: string): boolean {
  return fliteVoices().some((voice) => voice.id === voiceId);
}
