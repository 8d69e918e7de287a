// Turning provider audio bodies (raw PCM16 LE or a streamed WAV) into Int16Array chunks at the rate
// the caller asked for, as the bytes arrive. Shared by the OpenAI and ElevenLabs speech clients.

import { SpeechProviderError } from "../types.ts";
import { StreamingResampler } from "../../media/resampler.ts";

export interface PcmStreamOptions {
  /** Rate of raw PCM bodies; ignored for WAV, whose header says. */
  fromRate: number;
  toRate: number;
  container: "raw" | "wav";
  /** Longest silence between two network reads before the stream counts as stalled. */
  idleTimeoutMs: number;
  signal?: AbortSignal;
  /** Names the provider in errors. */
  provider: string;
}

/**
 * Yields PCM16 mono chunks as the response body arrives. Aborting the signal (barge-in) or leaving
 * the loop early cancels the body, which closes the connection; an abort ends the stream quietly.
 */
export async function* pcmChunks(body: ReadableStream<Uint8Array>, options: PcmStreamOptions): AsyncGenerator<Int16Array> {
  const reader = body.getReader();
  const cancel = () => void reader.cancel().catch(() => {});
  options.signal?.addEventListener("abort", cancel, { once: true });
  const decoder = new PcmDecoder();
  const wav = options.container === "wav" ? new WavHeaderReader() : null;
  // Time-aligned: no leading filter delay, and the tail trimmed so the length is exactly the input's at the new rate.
  const aligned = (fromRate: number) => {
    const created = new StreamingResampler({ fromRate, toRate: options.toRate });
    created.skipLeadingZeros();
    return created;
  };
  let resampler: StreamingResampler | null = wav ? null : aligned(options.fromRate);
  let samplesIn = 0;
  let samplesOut = 0;
  let finished = false;
  try {
    for (;;) {
      if (options.signal?.aborted) return;
      let read: ReadResult;
      try {
        read = await readWithin(reader, options.idleTimeoutMs, options.provider);
      } catch (error) {
        if (options.signal?.aborted) return;
        if (error instanceof SpeechProviderError) throw error;
        throw new SpeechProviderError(`${options.provider}: the audio stream broke off: ${(error as Error)?.message ?? error}`);
      }
      if (options.signal?.aborted) return;
      if (read.done) break;
      let bytes = read.value;
      if (wav && !resampler) {
        const header = wav.push(bytes, options.provider);
        if (!header) continue;
        resampler = aligned(header.sampleRate);
        bytes = header.rest;
      }
      const input = decoder.push(bytes);
      samplesIn += input.length;
      const chunk = resampler!.push(input);
      samplesOut += chunk.length;
      if (chunk.length) yield chunk;
    }
    finished = true;
    if (wav && !resampler) throw new SpeechProviderError(`${options.provider}: the WAV stream ended before its audio data`);
    const wanted = Math.round((samplesIn * resampler!.toRate) / resampler!.fromRate);
    const tail = resampler!.flush().subarray(0, Math.max(0, wanted - samplesOut));
    if (tail.length) yield tail;
  } finally {
    options.signal?.removeEventListener("abort", cancel);
    resampler?.free();
    if (!finished) cancel();
  }
}

/** Reassembles little-endian 16-bit samples across reads that split them at odd byte offsets. */
export class PcmDecoder {
  private carry: number | null = null;

  push(bytes: Uint8Array): Int16Array {
    let input = bytes;
    if (this.carry !== null) {
      input = new Uint8Array(bytes.length + 1);
      input[0] = this.carry;
      input.set(bytes, 1);
      this.carry = null;
    }
    const even = input.length - (input.length % 2);
    if (even < input.length) this.carry = input[even];
    // A copy: the read may be a view at an odd offset. Bun runs on little-endian hosts only, so the bytes are the samples.
    return new Int16Array(input.slice(0, even).buffer);
  }
}

/** Collects a WAV header from the first reads; hands back the sample rate and the audio bytes after it. */
class WavHeaderReader {
  private pending = new Uint8Array(0);

  push(bytes: Uint8Array, provider: string): { sampleRate: number; rest: Uint8Array } | null {
    const joined = new Uint8Array(this.pending.length + bytes.length);
    joined.set(this.pending);
    joined.set(bytes, this.pending.length);
    this.pending = joined;
    const header = parseWavHeader(joined);
    if (header === "incomplete") {
      if (joined.length > 64 * 1024) throw new SpeechProviderError(`${provider}: no WAV data chunk in the first 64 KiB`);
      return null;
    }
    if (header.channels !== 1 || header.bitsPerSample !== 16 || header.format !== 1) {
      throw new SpeechProviderError(`${provider}: expected 16-bit mono PCM WAV, got format ${header.format}, ${header.channels} channel(s), ${header.bitsPerSample} bits`);
    }
    return { sampleRate: header.sampleRate, rest: joined.subarray(header.dataOffset) };
  }
}

export interface WavHeader {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  /** Where the samples start. */
  dataOffset: number;
  /** As declared; streamed WAVs often say 0 or 0xFFFFFFFF because the length is not known yet. */
  dataLength: number;
}

/** Walks RIFF chunks up to `data`; "incomplete" while more bytes are needed. Throws if it is not WAV. */
export function parseWavHeader(bytes: Uint8Array): WavHeader | "incomplete" {
  if (bytes.length < 12) return "incomplete";
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") throw new SpeechProviderError("the audio is not a RIFF/WAVE file");
  let at = 12;
  let fmt: Omit<WavHeader, "dataOffset" | "dataLength"> | null = null;
  while (at + 8 <= bytes.length) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    if (id === "data") {
      if (!fmt) throw new SpeechProviderError("the WAV data chunk comes before its fmt chunk");
      return { ...fmt, dataOffset: at + 8, dataLength: size };
    }
    if (at + 8 + size > bytes.length) return "incomplete";
    if (id === "fmt ") {
      fmt = { format: view.getUint16(at + 8, true), channels: view.getUint16(at + 10, true), sampleRate: view.getUint32(at + 12, true), bitsPerSample: view.getUint16(at + 22, true) };
    }
    at += 8 + size + (size % 2); // chunks are padded to even sizes
  }
  return "incomplete";
}

/** A 44-byte-header PCM16 mono WAV file around the samples. */
export function encodeWav(pcm: Int16Array, sampleRate: number): Uint8Array {
  const dataBytes = pcm.length * 2;
  const out = new Uint8Array(44 + dataBytes);
  const view = new DataView(out.buffer);
  const ascii = (at: number, text: string) => [...text].forEach((char, i) => (out[at + i] = char.charCodeAt(0)));
  ascii(0, "RIFF");
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, "WAVE");
  ascii(12, "fmt ");
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true);
  ascii(36, "data");
  view.setUint32(40, dataBytes, true);
  out.set(new Uint8Array(pcm.buffer, pcm.byteOffset, dataBytes), 44);
  return out;
}

type ReadResult = { done: true; value?: Uint8Array } | { done: false; value: Uint8Array };
type ByteReader = { read(): Promise<ReadResult>; cancel(reason?: unknown): Promise<void> };

async function readWithin(reader: ByteReader, timeoutMs: number, provider: string): Promise<ReadResult> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stalled = new Promise<never>((_, reject) => {
    // The caller cancels the body afterwards; cancelling here first would end the read as "done".
    timer = setTimeout(() => reject(new SpeechProviderError(`${provider}: the audio stream stalled for ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([reader.read(), stalled]);
  } finally {
    clearTimeout(timer);
  }
}
