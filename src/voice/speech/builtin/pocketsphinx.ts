// The built-in offline recogniser: CMU PocketSphinx (pocketsphinx-decoder.ts), carried by the executable
// or from the operating system (pocketsphinx-location.ts).
//
// Each decoder runs on a thread of its own (pocketsphinx-thread.ts), never on the event loop: it spends
// 5-7 ms of CPU on each 20 ms of a caller's speech and takes ~0.4 s to create, which there held up
// every live call's audio and every request. A decoder takes ~100 MB and is not thread-safe, so
// decoders are pooled here: a session owns one from start() until finish()/abort() (so always call one
// of them), then it goes back for the next utterance of audio like what it heard (see bandOf). Audio is
// decoded as it is written, so finish() only waits for the last frames.
import { SpeechUnavailable, type RecognitionOptions, type RecognitionSession, type SpeechToText, type Transcript } from "../types.ts";
import { StreamingResampler } from "../../media/resampler.ts";
import { missingPieces, OS_POCKETSPHINX, POCKETSPHINX_MODELS, type PocketsphinxLocation, type PocketsphinxModel } from "./pocketsphinx-decoder.ts";
import { pocketsphinxLocation } from "./pocketsphinx-location.ts";
import type { RecognitionReply, RecognitionRequest } from "./pocketsphinx-thread.ts";

export { DEBIAN_MODEL_DIR, POCKETSPHINX_INSTALL, POCKETSPHINX_MODELS, type PocketsphinxModel } from "./pocketsphinx-decoder.ts";
export { usePocketsphinxCache } from "./pocketsphinx-location.ts";

/** The acoustic model is trained on 16 kHz audio; other rates are resampled to it. */
const MODEL_SAMPLE_RATE = 16_000;

export interface PocketsphinxOptions {
  /** Folder holding `en-us/` (acoustic model), `en-us.lm.bin` and `cmudict-en-us.dict`; default the carried copy's, else Debian's. */
  modelDir?: string;
  /** Decoders alive at once (each ~100 MB); a start() beyond this throws SpeechUnavailable. */
  maxDecoders?: number;
  /**
   * Decoders kept for reuse after their session ends; default as many as may live, since each call
   * needs one again at its next utterance (with 2 kept, 4 talking calls made two new ones, ~0.4 s of
   * CPU each, at every turn). Unused ones still go after idleFreeMs.
   */
  maxIdleDecoders?: number;
  /** An idle decoder unused this long is freed (its ~100 MB go back to the system). Default 60 s. */
  idleFreeMs?: number;
  /** More PocketSphinx options as name/value pairs, e.g. `["-beam", "1e-60"]` (for tuning). */
  decoderArgs?: string[];
}

/** A decoder as the pool sees it; the decoder itself lives on its own thread. */
interface DecoderHandle {
  thread: RecognitionThread;
  /** Channel of the last utterance it finished (see channelOf): its normalisation is adapted to it. */
  adaptedTo: string | null;
  /** Band of the audio it has heard (see bandOf); null: none yet, so it still has the model's own normalisation. */
  band: number | null;
  /** Its thread could not create it (or died): never handed out again. */
  broken: boolean;
}

export class PocketsphinxRecogniser implements SpeechToText {
  readonly id = "builtin:pocketsphinx";
  private readonly modelDir: string | undefined;
  private readonly maxDecoders: number;
  private readonly maxIdleDecoders: number;
  private readonly decoderArgs: string[];
  private readonly idle: DecoderHandle[] = [];
  private live = 0;
  private readonly idleFreeMs: number;
  /** When each idle decoder was last given back. */
  private readonly idleSince = new Map<DecoderHandle, number>();
  private sweeper: ReturnType<typeof setInterval> | null = null;

  constructor(options: PocketsphinxOptions = {}) {
    this.modelDir = options.modelDir;
    this.maxDecoders = options.maxDecoders ?? 6;
    this.maxIdleDecoders = options.maxIdleDecoders ?? this.maxDecoders;
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
    const channel = channelOf(options);
    const band = bandOf(options.sampleRate);
    const handle = this.acquire(band, channel);
    // A fresh decoder starts from the model's own (wideband) normalisation, right for wideband audio;
    // one that adapted to another caller is wrong for them until it has heard this one.
    const replay = handle.adaptedTo !== channel && (band < MODEL_SAMPLE_RATE || handle.adaptedTo !== null);
    return new PocketsphinxSession(handle, model, replay, options, (reusable) => this.release(handle, reusable, reusable ? { channel, band } : null));
  }

  /** Creates decoders ahead of the first calls (on the recognition threads, ~0.4 s each). */
  warmUp(count = 1): void {
    const created: DecoderHandle[] = [];
    const wanted = Math.min(count, this.maxIdleDecoders) - this.idle.length;
    for (let i = 0; i < wanted; i++) created.push(this.acquire(null));
    for (const handle of created) this.release(handle, true, null);
  }

  /** Frees the idle decoders (sessions still running keep theirs until they end). */
  close(): void {
    for (const handle of this.idle.splice(0)) this.free(handle);
    this.idleSince.clear();
  }

  /** Decoders that exist now, in use or idle. */
  get decoderCount(): number {
    return this.live;
  }

  /** A quiet box should not hold ~100 MB per decoder it once needed: idle ones past their time go. */
  private freeUnused(): void {
    const now = performance.now();
    for (const handle of [...this.idle]) {
      if (now - (this.idleSince.get(handle) ?? now) < this.idleFreeMs) continue;
      this.dropIdle(handle);
      this.free(handle);
    }
    if (this.idle.length === 0 && this.sweeper) {
      clearInterval(this.sweeper);
      this.sweeper = null;
    }
  }

  /**
   * A decoder's channel normalisation adapts to what it has heard, so the one that last heard this
   * channel (the same call) comes first, then one that heard this band (another caller, whose start
   * it replays), then one that has heard nothing. A decoder never serves another band: after a phone
   * call's ~10 s of 8 kHz speech, 1.5 s of a browser's barely moves its normalisation, and the
   * browser caller's first three questions came out garbled. At the cap, an idle decoder of another
   * band makes way for a new one (~0.4 s on its thread, while the caller talks).
   * `band` null: any decoder will do (warmUp).
   */
  private acquire(band: number | null, channel: string | null = null): DecoderHandle {
    const suitable = this.idle.filter((handle) => band === null || handle.band === null || handle.band === band);
    const reused = suitable.findLast((handle) => handle.adaptedTo === channel) ?? suitable.findLast((handle) => handle.band === band) ?? suitable.at(-1);
    if (reused) {
      this.dropIdle(reused);
      return reused;
    }
    const other = this.idle[0]; // of another band, and idle the longest
    if (this.live >= this.maxDecoders && other) {
      this.dropIdle(other);
      this.free(other);
    }
    if (this.live >= this.maxDecoders) {
      throw new SpeechUnavailable(`All ${this.maxDecoders} built-in recognisers are in use; try again when a call ends.`);
    }
    const { location, reason } = checkPocketsphinx(this.modelDir);
    if (reason) throw new SpeechUnavailable(reason);
    // A thread per decoder: the system shares the cores among the callers talking now, and no caller's
    // audio waits behind another's (decoders on a shared thread took turns, and fell behind together).
    const handle = { adaptedTo: null, band: null, broken: false } as DecoderHandle;
    handle.thread = new RecognitionThread(location, this.decoderArgs, () => this.lost(handle));
    this.live++;
    return handle;
  }

  /** `adaptedTo`: the channel (and its band) a finished utterance adapted it to (null when it did not finish one). */
  private release(handle: DecoderHandle, reusable: boolean, adaptedTo: { channel: string; band: number } | null): void {
    if (adaptedTo !== null) Object.assign(handle, { adaptedTo: adaptedTo.channel, band: adaptedTo.band });
    if (reusable && !handle.broken && this.idle.length < this.maxIdleDecoders) {
      this.idle.push(handle);
      this.idleSince.set(handle, performance.now());
      this.sweeper ??= setInterval(() => this.freeUnused(), Math.max(1000, this.idleFreeMs / 4));
      this.sweeper.unref?.();
    } else {
      this.free(handle);
    }
  }

  private free(handle: DecoderHandle): void {
    handle.thread.close();
    this.live--;
  }

  /** Its thread could not create it or died: an idle one goes now; one in use goes when its session ends. */
  private lost(handle: DecoderHandle): void {
    handle.broken = true;
    if (this.dropIdle(handle)) this.free(handle);
  }

  private dropIdle(handle: DecoderHandle): boolean {
    const at = this.idle.indexOf(handle);
    if (at < 0) return false;
    this.idle.splice(at, 1);
    this.idleSince.delete(handle);
    return true;
  }
}

class PocketsphinxSession implements RecognitionSession {
  private ended = false;
  private partialListener?: (text: string) => void;
  /** Audio at another rate is resampled to the model's as it arrives. */
  private readonly resampler: StreamingResampler | null;
  private readonly utterance: number;
  private readonly signal?: AbortSignal;
  // Removed when the session ends: a call's signal outlives its many utterances.
  private readonly onAbort = () => this.abort();

  constructor(
    private readonly handle: DecoderHandle,
    model: PocketsphinxModel,
    /**
     * Decode the utterance's start a second time once the decoder has adapted to this channel: its
     * normalisation starts from whatever it heard last (wideband speech, another caller), and a first
     * utterance decoded from there comes out garbled (narrowband "thank you very much, goodbye" →
     * "what"; a browser's "what are your opening hours" after telephone calls → "what do you use").
     * The thread does it after 1.5 s of audio, while the caller talks (ADAPT_AFTER_SAMPLES).
     */
    replay: boolean,
    options: RecognitionOptions,
    private readonly end: (reusable: boolean) => void,
  ) {
    this.resampler = options.sampleRate === MODEL_SAMPLE_RATE ? null : new StreamingResampler({ fromRate: options.sampleRate, toRate: MODEL_SAMPLE_RATE });
    this.utterance = handle.thread.startUtterance(model, replay, (text) => this.partialListener?.(text));
    this.signal = options.signal;
    if (this.signal?.aborted) this.abort();
    else this.signal?.addEventListener("abort", this.onAbort, { once: true });
  }

  /** Partial hypotheses (every ~300 ms of audio) arrive from the recognition thread once someone listens. */
  get onPartial(): ((text: string) => void) | undefined {
    return this.partialListener;
  }

  set onPartial(listener: ((text: string) => void) | undefined) {
    if (listener && !this.partialListener && !this.ended) this.handle.thread.post({ type: "partials" });
    this.partialListener = listener;
  }

  write(pcm: Int16Array): void {
    if (this.ended || pcm.length === 0) return;
    // The caller may reuse its buffer: what goes to the thread is a copy it can own.
    const samples = this.resampler ? this.resampler.push(pcm) : pcm.slice();
    if (samples.length > 0) this.handle.thread.audio(samples);
  }

  async finish(): Promise<Transcript> {
    if (this.ended) return { text: "", confidence: null };
    this.ended = true;
    this.signal?.removeEventListener("abort", this.onAbort);
    const tail = this.resampler?.flush();
    this.resampler?.free();
    if (tail && tail.length > 0) this.handle.thread.audio(tail);
    try {
      const text = await this.handle.thread.finish(this.utterance);
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
    this.signal?.removeEventListener("abort", this.onAbort);
    this.resampler?.free();
    this.handle.thread.post({ type: "abort" });
    this.handle.thread.forget(this.utterance);
    this.end(!this.handle.broken);
  }
}

/**
 * Whether `builtin:pocketsphinx` can run here, for the health endpoint and agent validation;
 * `carried`: from the copy inside the executable (else the OS's).
 */
export function pocketsphinxAvailability(modelDir?: string): { available: boolean; reason: string | null; carried: boolean } {
  const { location, reason } = checkPocketsphinx(modelDir);
  return { available: reason === null, reason, carried: location.libraries !== null };
}

/**
 * Where the recogniser is (`modelDir` overriding its model) and what stops it from running (null:
 * nothing). A carried copy that could not be extracted leaves the OS's packages, if installed.
 */
function checkPocketsphinx(modelDir: string | undefined): { location: PocketsphinxLocation; reason: string | null } {
  let location: PocketsphinxLocation;
  let unextracted = "";
  try {
    location = pocketsphinxLocation();
  } catch (error) {
    location = OS_POCKETSPHINX;
    unextracted = `The offline recogniser this executable carries ${(error as Error).message}. `;
  }
  if (modelDir) location = { ...location, modelDir };
  const reason = missingPieces(location);
  return { location, reason: reason && unextracted + reason };
}

/** What a decoder adapts to: the call (when known) at its line rate. */
function channelOf(options: RecognitionOptions): string {
  return `${options.sampleRate}:${options.channel ?? ""}`;
}

/**
 * The band of audio at this rate, as the model hears it once resampled to 16 kHz: telephone audio
 * (8 kHz) has nothing above 4 kHz, while 16 and 48 kHz (browser) audio look alike.
 */
function bandOf(sampleRate: number): number {
  return Math.min(sampleRate, MODEL_SAMPLE_RATE);
}

interface Waiting {
  resolve(text: string): void;
  reject(error: Error): void;
  onPartial: (text: string) => void;
  finishing: boolean;
  /** A failure the thread answered before finish() was asked for. */
  error?: string;
}

/**
 * A decoder's thread: started with the decoder (created there, ~0.4 s off the event loop) and ended
 * when it is freed, which gives back everything PocketSphinx held. It stays out of the process's way
 * while nobody waits on it: referenced only while an utterance is being finished.
 */
class RecognitionThread {
  private worker: Worker | null;
  private readonly utterances = new Map<number, Waiting>();
  private nextUtterance = 1;
  private finishing = 0;

  constructor(location: PocketsphinxLocation, args: string[], private readonly lost: () => void) {
    // Listed as an entrypoint of the executable in scripts/build.ts, so this URL resolves inside it too.
    const worker = new Worker(new URL("./pocketsphinx-thread.ts", import.meta.url));
    worker.unref();
    worker.onmessage = ({ data }: MessageEvent<RecognitionReply>) => this.receive(data);
    worker.onerror = (event) => this.died(`the recognition thread failed: ${event.message}`);
    this.worker = worker;
    this.post({ type: "create", location, args });
  }

  startUtterance(model: PocketsphinxModel, replay: boolean, onPartial: (text: string) => void): number {
    const utterance = this.nextUtterance++;
    this.utterances.set(utterance, { resolve: () => undefined, reject: () => undefined, onPartial, finishing: false });
    this.post({ type: "start", utterance, model, replay });
    return utterance;
  }

  audio(samples: Int16Array): void {
    this.post({ type: "audio", samples }, [samples.buffer as ArrayBuffer]);
  }

  finish(utterance: number): Promise<string> {
    const waiting = this.utterances.get(utterance);
    if (waiting?.error !== undefined) this.utterances.delete(utterance);
    if (!waiting || !this.worker || waiting.error !== undefined) return Promise.reject(new Error(waiting?.error ?? "the recognition thread has stopped"));
    return new Promise((resolve, reject) => {
      Object.assign(waiting, { resolve, reject, finishing: true });
      if (this.finishing++ === 0) this.worker!.ref(); // a caller waits for this answer
      this.post({ type: "finish", utterance });
    });
  }

  /** An aborted utterance: no answer is coming, and its partials are no longer wanted. */
  forget(utterance: number): void {
    this.utterances.delete(utterance);
  }

  /** The thread frees the decoder, then ends itself: terminated at once, it would keep the decoder's memory. */
  close(): void {
    this.post({ type: "close" });
    this.worker = null;
  }

  /** Whatever is meant for a thread that has ended or died goes nowhere. */
  post(request: RecognitionRequest, transfer: ArrayBuffer[] = []): void {
    this.worker?.postMessage(request, transfer);
  }

  private receive(reply: RecognitionReply): void {
    if (reply.type === "failed") return this.lost();
    const waiting = this.utterances.get(reply.utterance);
    if (!waiting) return;
    if (reply.type === "partial") return waiting.onPartial(reply.text);
    if (reply.type === "error" && !waiting.finishing) {
      waiting.error = reply.error;
      return;
    }
    this.utterances.delete(reply.utterance);
    if (waiting.finishing && --this.finishing === 0) this.worker?.unref();
    if (reply.type === "result") waiting.resolve(reply.text);
    else waiting.reject(new Error(reply.error));
  }

  /** A thread that died takes its decoder and its utterances with it. */
  private died(reason: string): void {
    if (!this.worker) return;
    this.worker.terminate();
    this.worker = null;
    this.finishing = 0;
    const waiting = [...this.utterances.values()];
    for (const [id, utterance] of this.utterances) {
      if (utterance.finishing) this.utterances.delete(id);
      else utterance.error ??= reason;
    }
    this.lost();
    for (const utterance of waiting) if (utterance.finishing) utterance.reject(new Error(reason));
  }
}
