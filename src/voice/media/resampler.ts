// Streaming sample-rate conversion (8k ↔ 16k ↔ 22.05k ↔ 24k ↔ 48k …) with the SpeexDSP resampler,
// compiled to WASM by the Echogarden project (BSD-3-Clause). Each resampler keeps its filter state
// across frames, so a call's audio converted 20 ms at a time equals the whole converted at once.
//
// The SIMD build is ~4× faster than the plain one, so it is used wherever the engine validates it.
// Measured per 20 ms frame at quality 4: 3.5–4 µs for 8k↔16k, of which ~0.3 µs is the crossing
// into WASM, so 8k↔16k needs no JS fast path; 24k→16k ~5 µs; 22.05k→8k ~24 µs (an awkward ratio).
import { readFileSync } from "node:fs";
import speexFactory from "@echogarden/speex-resampler-wasm";
import speexSimdFactory from "@echogarden/speex-resampler-wasm/simd";
// The package's export map hides its .wasm files, so they are imported by path to be embedded.
import speexWasmPath from "../../../node_modules/@echogarden/speex-resampler-wasm/wasm/speex-resampler-nonsimd.wasm" with { type: "file" };
import speexSimdWasmPath from "../../../node_modules/@echogarden/speex-resampler-wasm/wasm/speex-resampler-simd.wasm" with { type: "file" };
import { type EmscriptenModule, HeapScratch, instantiateEmscripten } from "./emscripten.ts";

interface SpeexModule extends EmscriptenModule {
  _speex_resampler_init(channels: number, inRate: number, outRate: number, quality: number, errorPointer: number): number;
  _speex_resampler_process_int(state: number, channel: number, input: number, inputLength: number, output: number, outputLength: number): number;
  _speex_resampler_get_input_latency(state: number): number;
  _speex_resampler_get_output_latency(state: number): number;
  _speex_resampler_skip_zeros(state: number): number;
  _speex_resampler_reset_mem(state: number): number;
  _speex_resampler_destroy(state: number): void;
}

interface LoadedSpeex {
  module: SpeexModule;
  scratch: HeapScratch;
  /** Destroys the C state of a resampler that was dropped without free(). */
  leaks: FinalizationRegistry<number>;
  simd: boolean;
}

/** 0–10 in Speex terms; 3 is its "VoIP" setting, 5 its "desktop". 4 costs ~4 µs per 20 ms frame. */
export const DEFAULT_RESAMPLER_QUALITY = 4;

/** Input samples per WASM call; bounds the shared scratch buffer (100 ms at 48 kHz). */
const MAX_CHUNK = 4800;

/** Compiled once, when this module is first imported (a few ms), so creating a resampler is synchronous. */
const speex: LoadedSpeex = await (async () => {
  const simd = WebAssembly.validate(readFileSync(speexSimdWasmPath));
  const module = simd
    ? await instantiateEmscripten<SpeexModule>(speexSimdFactory, speexSimdWasmPath)
    : await instantiateEmscripten<SpeexModule>(speexFactory, speexWasmPath);
  const leaks = new FinalizationRegistry<number>((state) => module._speex_resampler_destroy(state));
  return { module, scratch: new HeapScratch(module), leaks, simd };
})();

/** Whether the SIMD build is the one in use. */
export const RESAMPLER_USES_SIMD = speex.simd;

export interface ResamplerOptions {
  fromRate: number;
  toRate: number;
  /** 0–10; default DEFAULT_RESAMPLER_QUALITY. */
  quality?: number;
}

/**
 * One direction of one call's audio. Free it when the call ends (`free()` or `using`); a dropped
 * resampler's WASM state is also reclaimed when it is garbage-collected, but not promptly.
 */
export class StreamingResampler {
  readonly fromRate: number;
  readonly toRate: number;
  readonly quality: number;
  private state: number;
  private freed = false;

  /** Null when the rates are equal: audio then passes through without touching WASM. */
  private readonly speex: LoadedSpeex | null;

  constructor(options: ResamplerOptions) {
    const quality = options.quality ?? DEFAULT_RESAMPLER_QUALITY;
    for (const rate of [options.fromRate, options.toRate]) {
      if (!(Number.isInteger(rate) && rate > 0)) throw new RangeError(`sample rate must be a positive integer, got ${rate}`);
    }
    if (!(Number.isInteger(quality) && quality >= 0 && quality <= 10)) throw new RangeError(`quality must be 0–10, got ${quality}`);
    this.fromRate = options.fromRate;
    this.toRate = options.toRate;
    this.quality = quality;
    this.speex = this.fromRate === this.toRate ? null : speex;
    this.state = 0;
    if (this.speex) {
      const { module, scratch } = this.speex;
      const errorPointer = scratch.reserve(4);
      this.state = module._speex_resampler_init(1, this.fromRate, this.toRate, this.quality, errorPointer);
      if (this.state === 0) throw new Error(`speex_resampler_init failed (error ${module.HEAPU32[errorPointer >> 2]})`);
      this.speex.leaks.register(this, this.state, this);
    }
  }

  /** Upper bound of the samples one `push` of `inputSamples` can return. */
  maxOutputSamples(inputSamples: number): number {
    return Math.ceil((inputSamples * this.toRate) / this.fromRate) + 2;
  }

  /** Delay the filter adds, in output samples (audio comes out this much later). */
  get latencySamples(): number {
    return this.speex ? this.speex.module._speex_resampler_get_output_latency(this.alive()) : 0;
  }

  /**
   * Converts the next chunk into `output` (at least `maxOutputSamples(input.length)` long) and
   * returns how many samples were written. Allocates nothing.
   */
  pushInto(input: Int16Array, output: Int16Array): number {
    if (!this.speex) {
      if (output.length < input.length) throw new RangeError(`output holds ${output.length} samples, needs ${input.length}`);
      output.set(input);
      return input.length;
    }
    const state = this.alive();
    const { module, scratch } = this.speex;
    let consumed = 0;
    let produced = 0;
    while (consumed < input.length) {
      const chunk = Math.min(input.length - consumed, MAX_CHUNK);
      const room = Math.min(output.length - produced, this.maxOutputSamples(MAX_CHUNK));
      // Layout: [input length u32][output length u32][input i16 × chunk][output i16 × room]
      const base = scratch.reserve(8 + 2 * chunk + 2 * room + 4);
      const inputPointer = base + 8;
      const outputPointer = inputPointer + ((2 * chunk + 3) & ~3);
      module.HEAP16.set(input.subarray(consumed, consumed + chunk), inputPointer >> 1);
      const lengths = module.HEAPU32;
      lengths[base >> 2] = chunk;
      lengths[(base >> 2) + 1] = room;
      module._speex_resampler_process_int(state, 0, inputPointer, base, outputPointer, base + 4);
      const used = lengths[base >> 2];
      const made = lengths[(base >> 2) + 1];
      if (made > 0) output.set(module.HEAP16.subarray(outputPointer >> 1, (outputPointer >> 1) + made), produced);
      consumed += used;
      produced += made;
      if (used === 0 && made === 0) throw new RangeError(`output holds ${output.length} samples, too few for ${input.length} input samples`);
    }
    return produced;
  }

  /** Converts the next chunk into a new array. */
  push(input: Int16Array): Int16Array {
    const output = new Int16Array(this.maxOutputSamples(input.length));
    const produced = this.pushInto(input, output);
    return produced === output.length ? output : output.slice(0, produced);
  }

  /** Pushes the filter's tail out (at the end of a stream); the state is then as if after reset(). */
  flush(): Int16Array {
    if (!this.speex) return new Int16Array(0);
    const tail = this.push(new Int16Array(this.speex.module._speex_resampler_get_input_latency(this.alive())));
    this.reset();
    return tail;
  }

  /** Starts over as if new (clears the filter memory). */
  reset(): void {
    if (this.speex) this.speex.module._speex_resampler_reset_mem(this.alive());
  }

  /**
   * Drops the filter's initial delay: the first outputs are the signal, not leading zeros. For
   * whole buffers; a live stream keeps constant frame sizes without it.
   */
  skipLeadingZeros(): void {
    if (this.speex) this.speex.module._speex_resampler_skip_zeros(this.alive());
  }

  free(): void {
    if (this.freed) return;
    this.freed = true;
    if (this.speex && this.state !== 0) {
      this.speex.leaks.unregister(this);
      this.speex.module._speex_resampler_destroy(this.state);
      this.state = 0;
    }
  }

  [Symbol.dispose](): void {
    this.free();
  }

  private alive(): number {
    if (this.freed) throw new Error("resampler used after free()");
    return this.state;
  }
}

/**
 * Resamples a whole buffer, time-aligned (no leading delay) and of length
 * round(input × toRate / fromRate).
 */
export function resampleBuffer(input: Int16Array, fromRate: number, toRate: number, quality = DEFAULT_RESAMPLER_QUALITY): Int16Array {
  if (fromRate === toRate) return input.slice();
  using resampler = new StreamingResampler({ fromRate, toRate, quality });
  resampler.skipLeadingZeros();
  const wanted = Math.round((input.length * toRate) / fromRate);
  const body = resampler.push(input);
  const tail = resampler.flush();
  const output = new Int16Array(wanted);
  output.set(body.subarray(0, wanted));
  if (body.length < wanted) output.set(tail.subarray(0, wanted - body.length), body.length);
  return output;
}
