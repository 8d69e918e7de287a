// The built-in offline recogniser: CMU PocketSphinx from the operating system (Debian bookworm's
// libpocketsphinx3 0.8+5prealpha and the pocketsphinx-en-us model), called through bun:ffi. The
// libraries are opened by soname, so the executable carries nothing of them.
//
// A decoder takes ~0.4 s and ~100 MB to create and is not thread-safe, so decoders are pooled:
// a session owns one from start() until finish()/abort() (so always call one of them), then it
// goes back for the next utterance. Decoding runs on the JS thread as audio is written (~5 ms of
// CPU per 20 ms frame), so finish() only has the last frames left to do.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CString, dlopen, FFIType, ptr, type Pointer } from "bun:ffi";
import { SpeechUnavailable, type RecognitionOptions, type RecognitionSession, type SpeechToText, type Transcript } from "../types.ts";
import { StreamingResampler } from "../../media/resampler.ts";

export const POCKETSPHINX_INSTALL = "apt-get install -y libpocketsphinx3 pocketsphinx-en-us";
/** Where Debian's pocketsphinx-en-us puts the US English model. */
export const DEBIAN_MODEL_DIR = "/usr/share/pocketsphinx/model/en-us";
/** The acoustic model is trained on 16 kHz audio; other rates are resampled to it. */
const MODEL_SAMPLE_RATE = 16_000;

/**
 * Recognition modes, chosen with `RecognitionOptions.model`. The default is open dictation with
 * the general US English language model; the grammars only accept what they list, which is far
 * more accurate when the answer is known to be digits or yes/no (e.g. a flow step asking for them).
 */
export const POCKETSPHINX_MODELS = ["en-us", "digits", "yes-no"] as const;
export type PocketsphinxModel = (typeof POCKETSPHINX_MODELS)[number];

const GRAMMARS: Record<Exclude<PocketsphinxModel, "en-us">, string> = {
  digits: `#JSGF V1.0;
grammar digits;
public <digits> = <digit>+;
<digit> = zero | oh | one | two | three | four | five | six | seven | eight | nine;`,
  "yes-no": `#JSGF V1.0;
grammar yesno;
public <answer> = [<filler>] (<yes> | <no>) [please | thanks | thank you];
<filler> = oh | well | um;
<yes> = yes | yeah | yep | sure | correct | right | that's right | okay;
<no> = no | nope | no thanks | not really | wrong;`,
};

/** Word insertion probability for grammar searches (dictation keeps the model's 0.65). */
const GRAMMAR_WORD_INSERTION_PENALTY = 0.02;

export interface PocketsphinxOptions {
  /** Folder holding `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`. */
  modelDir?: string;
  /** Decoders alive at once (each ~100 MB); a start() beyond this throws SpeechUnavailable. */
  maxDecoders?: number;
  /** Decoders kept for reuse after their session ends. */
  maxIdleDecoders?: number;
  /** An idle decoder unused this long is freed (its ~100 MB go back to the system). Default 60 s. */
  idleFreeMs?: number;
  /** More PocketSphinx options as name/value pairs, e.g. `["-beam", "1e-60"]` (for tuning). */
  decoderArgs?: string[];
}

export class PocketsphinxRecogniser implements SpeechToText {
  readonly id = "builtin:pocketsphinx";
  private readonly modelDir: string;
  private readonly maxDecoders: number;
  private readonly maxIdleDecoders: number;
  private readonly decoderArgs: string[];
  private readonly idle: Decoder[] = [];
  private live = 0;
  private readonly idleFreeMs: number;
  /** When each idle decoder was last given back. */
  private readonly idleSince = new Map<Decoder, number>();
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(options: PocketsphinxOptions = {}) {
    this.modelDir = options.modelDir ?? DEBIAN_MODEL_DIR;
    this.maxDecoders = options.maxDecoders ?? 6;
    this.maxIdleDecoders = options.maxIdleDecoders ?? 2;
    this.decoderArgs = options.decoderArgs ?? [];
    this.idleFreeMs = options.idleFreeMs ?? 60_000;
  }

  start(options: RecognitionOptions): RecognitionSession {
    if (!/^en(-|$)/i.test(options.language)) {
      throw new SpeechUnavailable(`The built-in recogniser only understands English; ${options.language} needs a speech provider.`);
    }
    const model = (options.model ?? "en-us") as PocketsphinxModel;
    if (!POCKETSPHINX_MODELS.includes(model)) {
      throw new SpeechUnavailable(`The built-in recogniser has no model "${options.model}"; use one of ${POCKETSPHINX_MODELS.join(", ")}.`);
    }
    if (!Number.isInteger(options.sampleRate) || options.sampleRate < 8000) {
      throw new RangeError(`sampleRate must be an integer ≥ 8000, got ${options.sampleRate}`);
    }
    const decoder = this.acquire(options.sampleRate, channelOf(options));
    try {
      decoder.startUtterance(model);
    } catch (error) {
      this.release(decoder, false);
      throw error;
    }
    return new PocketsphinxSession(decoder, model, options, (reusable) => this.release(decoder, reusable));
  }

  /** Creates decoders ahead of the first calls (each blocks the thread ~0.4 s while it loads). */
  warmUp(count = 1, sampleRate = 8_000): void {
    const created: Decoder[] = [];
    const wanted = Math.min(count, this.maxIdleDecoders) - this.idle.length;
    for (let i = 0; i < wanted; i++) created.push(this.acquire(sampleRate));
    for (const decoder of created) this.release(decoder, true);
  }

  /** Frees the idle decoders (sessions still running keep theirs until they end). */
  close(): void {
    for (const decoder of this.idle.splice(0)) {
      decoder.free();
      this.live--;
    }
    this.idleSince.clear();
  }

  /** A quiet box should not hold ~100 MB per decoder it once needed: idle ones past their time go. */
  private freeUnused(): void {
    const now = performance.now();
    for (const decoder of [...this.idle]) {
      if (now - (this.idleSince.get(decoder) ?? now) < this.idleFreeMs) continue;
      this.idle.splice(this.idle.indexOf(decoder), 1);
      this.idleSince.delete(decoder);
      decoder.free();
      this.live--;
    }
    if (this.idle.length === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  /** Decoders that exist now, in use or idle. */
  get decoderCount(): number {
    return this.live;
  }

  /**
   * A decoder's channel normalisation adapts to what it has heard, so prefer the one that last heard
   * this channel (the same call), then one that last heard audio at this rate (telephone-band calls
   * and wideband web calls sound different to it).
   */
  private acquire(sampleRate: number, channel: string | null = null): Decoder {
    const sameChannel = channel === null ? -1 : this.idle.findLastIndex((decoder) => decoder.adaptedTo === channel);
    const sameRate = sameChannel >= 0 ? sameChannel : this.idle.findLastIndex((decoder) => decoder.lastSampleRate === sampleRate);
    const reused = this.idle.splice(sameRate >= 0 ? sameRate : this.idle.length - 1, 1)[0];
    if (reused) {
      this.idleSince.delete(reused);
      reused.lastSampleRate = sampleRate;
      return reused;
    }
    if (this.live >= this.maxDecoders) {
      throw new SpeechUnavailable(`All ${this.maxDecoders} built-in recognisers are in use; try again when a call ends.`);
    }
    const decoder = Decoder.create(this.modelDir, this.decoderArgs); // throws SpeechUnavailable when not installed
    decoder.lastSampleRate = sampleRate;
    this.live++;
    return decoder;
  }

  private release(decoder: Decoder, reusable: boolean): void {
    if (reusable && this.idle.length < this.maxIdleDecoders) {
      this.idle.push(decoder);
      this.idleSince.set(decoder, performance.now());
      this.sweeper ??= setInterval(() => this.freeUnused(), Math.max(1000, this.idleFreeMs / 4));
      this.sweeper.unref?.();
    } else {
      decoder.free();
      this.live--;
    }
  }
}

/** How often partial hypotheses are computed when someone listens (in audio milliseconds). */
const PARTIAL_EVERY_MS = 300;

class PocketsphinxSession implements RecognitionSession {
  onPartial?: (text: string) => void;
  private ended = false;
  /** Audio at another rate is resampled to the model's as it arrives. */
  private readonly resampler: StreamingResampler | null;
  private samplesSincePartial = 0;
  private lastPartial = "";
  /**
   * The utterance's audio, kept while the decoder has not yet adapted to this channel: its
   * normalisation starts from whatever it heard last (wideband speech, another caller), and a first
   * utterance decoded from there comes out garbled (narrowband "thank you very much, goodbye" →
   * "what"; a browser's "what are your opening hours" after telephone calls → "what do you use").
   * Decoding it a second time, adapted, costs that one utterance's decode time once per call.
   */
  private replay: Int16Array[] | null;

  constructor(
    private readonly decoder: Decoder,
    private readonly model: PocketsphinxModel,
    private readonly options: RecognitionOptions,
    private readonly end: (reusable: boolean) => void,
  ) {
    // A fresh decoder starts from the model's own (wideband) normalisation, right for wideband audio;
    // one that adapted to another channel is wrong for any rate until it has heard this one.
    const unadapted = decoder.adaptedTo !== channelOf(options);
    this.replay = unadapted && (options.sampleRate < MODEL_SAMPLE_RATE || decoder.adaptedTo !== null) ? [] : null;
    this.resampler = options.sampleRate === MODEL_SAMPLE_RATE ? null : new StreamingResampler({ fromRate: options.sampleRate, toRate: MODEL_SAMPLE_RATE });
    if (options.signal?.aborted) this.abort();
    else options.signal?.addEventListener("abort", () => this.abort(), { once: true });
  }

  write(pcm: Int16Array): void {
    if (this.ended || pcm.length === 0) return;
    const samples = this.resampler ? this.resampler.push(pcm) : pcm;
    if (samples.length > 0) this.decoder.process(samples);
    this.replay?.push(samples === pcm ? pcm.slice() : samples);
    if (!this.onPartial) return;
    this.samplesSincePartial += samples.length;
    if (this.samplesSincePartial < (MODEL_SAMPLE_RATE * PARTIAL_EVERY_MS) / 1000) return;
    this.samplesSincePartial = 0;
    const partial = this.decoder.hypothesis();
    if (partial && partial !== this.lastPartial) this.onPartial((this.lastPartial = partial));
  }

  async finish(): Promise<Transcript> {
    if (this.ended) return { text: "", confidence: null };
    this.ended = true;
    try {
      const tail = this.resampler?.flush();
      this.resampler?.free();
      if (tail && tail.length > 0) this.decoder.process(tail);
      this.decoder.endUtterance();
      if (this.replay) {
        if (tail?.length) this.replay.push(tail);
        this.decoder.startUtterance(this.model);
        for (const samples of this.replay) this.decoder.process(samples);
        this.decoder.endUtterance();
        this.replay = null;
      }
      this.decoder.adaptedTo = channelOf(this.options);
      const text = this.decoder.hypothesis();
      this.end(true);
      return { text, confidence: null };
    } catch (error) {
      this.end(false);
      throw error;
    }
  }

  abort(): void {
    if (this.ended) return;
    this.ended = true;
    this.resampler?.free();
    try {
      this.decoder.endUtterance();
      this.end(true);
    } catch {
      this.end(false);
    }
  }
}

/** What a decoder adapts to: the call (when known) at its line rate. */
function channelOf(options: RecognitionOptions): string {
  return `${options.sampleRate}:${options.channel ?? ""}`;
}

/** One ps_decoder_t with the searches it has loaded. */
class Decoder {
  private readonly searches = new Set<string>(["en-us"]);
  private readonly score = new Int32Array(1);
  /** Input rate of the last session that used this decoder. */
  lastSampleRate = 0;
  /** Channel of the last utterance it finished (see channelOf): its normalisation is adapted to it. */
  adaptedTo: string | null = null;

  private constructor(private readonly handle: NativePointer) {}

  static create(modelDir: string, extraArgs: string[]): Decoder {
    const libraries = loadLibraries(modelDir);
    const config = parseConfig(libraries, [
      "-hmm", join(modelDir, "en-us"),
      "-lm", join(modelDir, "en-us.lm.bin"),
      "-dict", join(modelDir, "cmudict-en-us.dict"),
      "-logfn", "/dev/null",
      ...extraArgs,
    ]);
    const handle = libraries.ps.symbols.ps_init(config);
    libraries.sphinxbase.symbols.cmd_ln_free_r(config); // the decoder keeps its own reference
    if (!handle) throw new SpeechUnavailable(`PocketSphinx could not load the model in ${modelDir}; reinstall it with: ${POCKETSPHINX_INSTALL}`);
    return new Decoder(handle);
  }

  startUtterance(model: PocketsphinxModel): void {
    const { ps } = libraries!;
    // ps_init names the language-model search "_default".
    const search = model === "en-us" ? "_default" : model;
    if (!this.searches.has(model) && model !== "en-us") {
      // A grammar search reads the word insertion penalty when it is created; a stronger one
      // than dictation's stops it padding short answers with extra words (digit WER 11% → 5%).
      const { sphinxbase } = libraries!;
      const config = ps.symbols.ps_get_config(this.handle);
      const wip = cString("-wip");
      const dictationWip = sphinxbase.symbols.cmd_ln_float_r(config, wip);
      sphinxbase.symbols.cmd_ln_set_float_r(config, wip, GRAMMAR_WORD_INSERTION_PENALTY);
      const status = ps.symbols.ps_set_jsgf_string(this.handle, cString(model), cString(GRAMMARS[model]));
      sphinxbase.symbols.cmd_ln_set_float_r(config, wip, dictationWip);
      if (status !== 0) throw new Error(`pocketsphinx rejected the ${model} grammar`);
      this.searches.add(model);
    }
    if (ps.symbols.ps_set_search(this.handle, cString(search)) !== 0) throw new Error(`pocketsphinx has no search ${search}`);
    if (ps.symbols.ps_start_utt(this.handle) !== 0) throw new Error("pocketsphinx could not start an utterance");
  }

  process(pcm: Int16Array): void {
    if (libraries!.ps.symbols.ps_process_raw(this.handle, pcm, pcm.length, 0, 0) < 0) {
      throw new Error("pocketsphinx failed to process audio");
    }
  }

  endUtterance(): void {
    if (libraries!.ps.symbols.ps_end_utt(this.handle) < 0) throw new Error("pocketsphinx could not end the utterance");
  }

  hypothesis(): string {
    const text = libraries!.ps.symbols.ps_get_hyp(this.handle, this.score);
    return text ? new CString(text as Pointer).toString().trim() : "";
  }

  free(): void {
    libraries!.ps.symbols.ps_free(this.handle);
    // A decoder is ~100 MB in many small allocations: without a trim glibc keeps the freed pages.
    libraries!.libc?.symbols.malloc_trim(0);
  }
}

function openPocketsphinx() {
  const sphinxbase = dlopen("libsphinxbase.so.3", {
    err_set_logfp: { args: [FFIType.ptr], returns: FFIType.ptr },
    cmd_ln_parse_r: { args: [FFIType.ptr, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.ptr },
    cmd_ln_free_r: { args: [FFIType.ptr], returns: FFIType.i32 },
    cmd_ln_float_r: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.f64 },
    cmd_ln_set_float_r: { args: [FFIType.ptr, FFIType.ptr, FFIType.f64], returns: FFIType.void },
  });
  const ps = dlopen("libpocketsphinx.so.3", {
    ps_args: { args: [], returns: FFIType.ptr },
    ps_init: { args: [FFIType.ptr], returns: FFIType.ptr },
    ps_free: { args: [FFIType.ptr], returns: FFIType.i32 },
    ps_get_config: { args: [FFIType.ptr], returns: FFIType.ptr },
    ps_set_jsgf_string: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    ps_set_search: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
    ps_start_utt: { args: [FFIType.ptr], returns: FFIType.i32 },
    ps_process_raw: { args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    ps_end_utt: { args: [FFIType.ptr], returns: FFIType.i32 },
    ps_get_hyp: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
  });
  // Silence the library before it says anything (it logs its whole configuration otherwise).
  sphinxbase.symbols.err_set_logfp(null);
  let libc: { symbols: { malloc_trim(pad: number): number } } | null = null;
  try {
    libc = dlopen("libc.so.6", { malloc_trim: { args: [FFIType.u64], returns: FFIType.i32 } });
  } catch {
    libc = null; // not glibc: freed memory is the allocator's business
  }
  return { sphinxbase, ps, libc };
}

type Libraries = ReturnType<typeof openPocketsphinx>;
/** What bun:ffi hands back for a C pointer (bigint only above 2^53, which x86-64 never uses). */
type NativePointer = Pointer | bigint;
let libraries: Libraries | null = null;

function loadLibraries(modelDir: string): Libraries {
  const missing = missingPieces(modelDir);
  if (missing) throw new SpeechUnavailable(missing);
  return libraries!;
}

/** What stops PocketSphinx from running, as a sentence, or null when it can run. */
function missingPieces(modelDir: string): string | null {
  if (!libraries) {
    try {
      libraries = openPocketsphinx();
    } catch {
      return `The offline recogniser needs the PocketSphinx library; install it with: ${POCKETSPHINX_INSTALL}`;
    }
  }
  const files = ["en-us/mdef", "en-us.lm.bin", "cmudict-en-us.dict"].map((file) => join(modelDir, file));
  if (!files.every((file) => existsSync(file))) {
    return `The offline recogniser needs the US English model in ${modelDir}; install it with: ${POCKETSPHINX_INSTALL}`;
  }
  return null;
}

/** Whether `builtin:pocketsphinx` can run here, for the health endpoint and agent validation. */
export function pocketsphinxAvailability(modelDir = DEBIAN_MODEL_DIR): { available: boolean; reason: string | null } {
  const reason = missingPieces(modelDir);
  return { available: reason === null, reason };
}

function parseConfig(libraries: Libraries, args: string[]): NativePointer {
  const strings = args.map(cString);
  const argv = new BigUint64Array(strings.length);
  strings.forEach((string, i) => (argv[i] = BigInt(ptr(string))));
  const config = libraries.sphinxbase.symbols.cmd_ln_parse_r(null, libraries.ps.symbols.ps_args(), args.length, argv, 1);
  if (!config) throw new Error(`pocketsphinx rejected its configuration: ${args.join(" ")}`);
  return config;
}

/** A NUL-terminated copy for C; callers keep it referenced until the call returns. */
function cString(text: string): Buffer {
  return Buffer.from(`${text}\0`, "utf8");
}
