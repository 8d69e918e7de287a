// MP3 versions of call recordings (`GET /v1/calls/{id}/recording.mp3`), encoded with
// @breezystack/lamejs, the maintained fork of lamejs: LAME ported to plain JavaScript (LGPL-3.0).
//
// Encoding runs in a worker thread. On the main thread lamejs stalled the event loop for up to
// 50–190 ms at a time (its huge functions being compiled mid-run), which live calls' 20 ms frames
// cannot afford; in a worker the main thread only reads the WAV and passes blocks along. The worker
// is made from lamejs's own browser build, embedded as text, so it needs no file of its own beside
// the executable. A block (1152 frames) at a time with a few in flight: a 10-minute call never
// holds more than a few blocks in memory. Encoding runs at roughly 60–100× real time.
import { closeSync, openSync, writeSync } from "node:fs";
import lameSource from "../../../node_modules/@breezystack/lamejs/dist/lamejs.iife.js" with { type: "text" };
import { WavFileReader } from "./wav-reader.ts";

/** Samples per channel in one MPEG-1 layer III frame (two MPEG-2/2.5 frames). */
const BLOCK_FRAMES = 1152;
/** Blocks handed to the worker before waiting for the first one back. */
const BLOCKS_IN_FLIGHT = 4;

export interface Mp3Options {
  /** Default: 16 kbps per channel at ≤ 12 kHz, 24 at ≤ 24 kHz, 48 above. */
  bitrateKbps?: number;
  /** Mix the two sides into one channel (half the size). Default false. */
  mono?: boolean;
}

export function defaultMp3Bitrate(sampleRate: number, channels: number): number {
  const perChannel = sampleRate <= 12_000 ? 16 : sampleRate <= 24_000 ? 24 : 48;
  return perChannel * channels;
}

/** Runs in the worker after lamejs's browser build, which defines the global `lamejs`. */
const WORKER_BODY = `
let encoder = null;
self.onmessage = ({ data }) => {
  try {
    if (data.type === "start") {
      encoder = new lamejs.Mp3Encoder(data.channels, data.sampleRate, data.bitrateKbps);
      return;
    }
    const out = data.type === "block" ? (data.right ? encoder.encodeBuffer(data.left, data.right) : encoder.encodeBuffer(data.left)) : encoder.flush();
    const bytes = new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
    self.postMessage({ bytes }, [bytes.buffer]);
  } catch (error) {
    self.postMessage({ error: String(error && error.stack || error) });
  }
};
`;

let workerUrl: string | null = null;

/** One encoding job in its own worker; answers come back in the order blocks were sent. */
class Mp3WorkerEncoder {
  private readonly worker: Worker;
  private readonly waiting: { resolve: (bytes: Uint8Array) => void; reject: (error: Error) => void }[] = [];
  private failure: Error | null = null;

  constructor(sampleRate: number, readonly channels: 1 | 2, bitrateKbps: number) {
    workerUrl ??= URL.createObjectURL(new Blob([lameSource, WORKER_BODY], { type: "application/javascript" }));
    this.worker = new Worker(workerUrl);
    this.worker.onmessage = ({ data }: MessageEvent<{ bytes?: Uint8Array; error?: string }>) => {
      const next = this.waiting.shift();
      if (data.error !== undefined) this.fail(new Error(`MP3 encoder: ${data.error}`), next);
      else next?.resolve(data.bytes ?? new Uint8Array(0));
    };
    this.worker.onerror = (event) => this.fail(new Error(`MP3 encoder worker: ${event.message}`));
    this.worker.postMessage({ type: "start", sampleRate, channels, bitrateKbps });
  }

  /** Encodes one block (the arrays are handed over to the worker and unusable afterwards). */
  encode(left: Int16Array, right?: Int16Array): Promise<Uint8Array> {
    const transfer = right ? [left.buffer, right.buffer] : [left.buffer];
    return this.request({ type: "block", left, right }, transfer as ArrayBuffer[]);
  }

  finish(): Promise<Uint8Array> {
    return this.request({ type: "finish" }, []);
  }

  close(): void {
    this.worker.terminate();
    this.fail(new Error("MP3 encoder closed"));
  }

  private request(message: unknown, transfer: ArrayBuffer[]): Promise<Uint8Array> {
    if (this.failure) return Promise.reject(this.failure);
    const answer = new Promise<Uint8Array>((resolve, reject) => this.waiting.push({ resolve, reject }));
    answer.catch(() => {}); // awaited by the caller; this only keeps an abandoned one from being "unhandled"
    this.worker.postMessage(message, transfer);
    return answer;
  }

  private fail(error: Error, first?: { reject: (error: Error) => void }): void {
    this.failure ??= error;
    first?.reject(error);
    for (const pending of this.waiting.splice(0)) pending.reject(error);
  }
}

/** Splits interleaved stereo into new left/right arrays, or mixes it to one (saturating sum). */
function splitBlock(block: Int16Array, inputChannels: number, outputChannels: 1 | 2): [Int16Array, Int16Array?] {
  if (inputChannels === 1) return [block.slice()];
  const frames = block.length >> 1;
  const left = new Int16Array(frames);
  if (outputChannels === 1) {
    // The two sides rarely speak at once, so they are summed rather than halved.
    for (let i = 0; i < frames; i++) {
      const sum = block[2 * i] + block[2 * i + 1];
      left[i] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum;
    }
    return [left];
  }
  const right = new Int16Array(frames);
  for (let i = 0; i < frames; i++) {
    left[i] = block[2 * i];
    right[i] = block[2 * i + 1];
  }
  return [left, right];
}

/** The MP3 of a 16-bit PCM WAV (mono or stereo) as a stream of byte chunks. */
export async function* wavFileToMp3Chunks(wavPath: string, options: Mp3Options = {}): AsyncGenerator<Uint8Array> {
  using reader = new WavFileReader(wavPath);
  const { sampleRate, channels: inputChannels } = reader.info;
  if (inputChannels !== 1 && inputChannels !== 2) throw new Error(`MP3 needs mono or stereo audio, the WAV has ${inputChannels} channels`);
  const channels = options.mono || inputChannels === 1 ? 1 : 2;
  const encoder = new Mp3WorkerEncoder(sampleRate, channels, options.bitrateKbps ?? defaultMp3Bitrate(sampleRate, channels));
  try {
    const inFlight: Promise<Uint8Array>[] = [];
    for (let block = reader.read(BLOCK_FRAMES); block; block = reader.read(BLOCK_FRAMES)) {
      inFlight.push(encoder.encode(...splitBlock(block, inputChannels, channels)));
      if (inFlight.length < BLOCKS_IN_FLIGHT) continue;
      const bytes = await inFlight.shift()!;
      if (bytes.length > 0) yield bytes;
    }
    inFlight.push(encoder.finish());
    for (const answer of inFlight) {
      const bytes = await answer;
      if (bytes.length > 0) yield bytes;
    }
  } finally {
    encoder.close();
  }
}

export interface Mp3Summary {
  bytes: number;
  durationMs: number;
}

/** Writes the MP3 of the WAV at `wavPath` to `mp3Path`. */
export async function wavFileToMp3(wavPath: string, mp3Path: string, options: Mp3Options = {}): Promise<Mp3Summary> {
  const durationMs = wavDurationMs(wavPath);
  const fd = openSync(mp3Path, "w");
  let bytes = 0;
  try {
    for await (const chunk of wavFileToMp3Chunks(wavPath, options)) {
      for (let written = 0; written < chunk.length; ) written += writeSync(fd, chunk, written, chunk.length - written, bytes + written);
      bytes += chunk.length;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes, durationMs };
}

function wavDurationMs(wavPath: string): number {
  using reader = new WavFileReader(wavPath);
  return reader.info.durationMs;
}
