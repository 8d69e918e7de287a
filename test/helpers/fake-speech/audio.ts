// Test audio: tones to stream from fake providers and to feed recognisers, and the measurements the
// tests make on what comes back (level, pitch).

/** A PCM16 mono tone: `ms` long at `rate`, `frequency` Hz, peak `amplitude`. */
export function tone(rate: number, ms: number, frequency = 440, amplitude = 8000): Int16Array {
  const samples = Math.round((rate * ms) / 1000);
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequency * i) / rate));
  return out;
}

export function silence(rate: number, ms: number): Int16Array {
  return new Int16Array(Math.round((rate * ms) / 1000));
}

/** The samples as little-endian bytes (what goes on the wire). */
export function pcmBytes(pcm: Int16Array): Uint8Array {
  return new Uint8Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.byteLength));
}

export function concatPcm(chunks: Int16Array[]): Int16Array {
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

export function rms(pcm: Int16Array, from = 0, to = pcm.length): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += pcm[i] * pcm[i];
  return Math.sqrt(sum / Math.max(1, to - from));
}

/** Pitch of a clean tone from its zero crossings, measured away from the edges. */
export function toneFrequency(pcm: Int16Array, rate: number): number {
  const from = Math.floor(pcm.length * 0.1);
  const to = Math.floor(pcm.length * 0.9);
  let crossings = 0;
  for (let i = from + 1; i < to; i++) if ((pcm[i - 1] < 0 && pcm[i] >= 0) || (pcm[i - 1] >= 0 && pcm[i] < 0)) crossings++;
  return (crossings / 2) * (rate / (to - from));
}

export interface WavInfo {
  format: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  samples: Int16Array;
}

/** Strict WAV reader for uploads: RIFF/WAVE, a fmt chunk, then data. Null when it is not one. */
export function readWav(bytes: Uint8Array): WavInfo | null {
  if (bytes.length < 12) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") return null;
  let at = 12;
  let fmt: Omit<WavInfo, "samples"> | null = null;
  while (at + 8 <= bytes.length) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    if (id === "fmt ") fmt = { format: view.getUint16(at + 8, true), channels: view.getUint16(at + 10, true), sampleRate: view.getUint32(at + 12, true), bitsPerSample: view.getUint16(at + 22, true) };
    if (id === "data") {
      if (!fmt || fmt.bitsPerSample !== 16) return null;
      const data = bytes.slice(at + 8, Math.min(bytes.length, at + 8 + size));
      return { ...fmt, samples: new Int16Array(data.buffer, 0, Math.floor(data.length / 2)) };
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/** A streamed body of PCM bytes: `chunkBytes` per piece, `delayMs` apart, with cancellation noted in `log`. */
export function pcmBody(bytes: Uint8Array, options: { chunkBytes: number; delayMs: number; log: StreamLog; header?: Uint8Array }): ReadableStream<Uint8Array> {
  let offset = 0;
  let headerSent = !options.header;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(options.header!);
        options.log.bytesSent += options.header!.length;
        options.log.firstByteAt ??= Date.now();
        return;
      }
      if (offset >= bytes.length) {
        options.log.finished = true;
        controller.close();
        return;
      }
      if (offset > 0 && options.delayMs > 0) await Bun.sleep(options.delayMs);
      if (options.log.cancelled) return;
      const piece = bytes.slice(offset, offset + options.chunkBytes);
      offset += piece.length;
      options.log.bytesSent += piece.length;
      options.log.firstByteAt ??= Date.now();
      controller.enqueue(piece);
    },
    cancel() {
      options.log.cancelled = true;
    },
  });
}

/** What happened to one streamed answer. */
export interface StreamLog {
  bytesSent: number;
  /** Every byte went out. */
  finished: boolean;
  /** The client hung up before the end. */
  cancelled: boolean;
  firstByteAt: number | null;
}

export function newStreamLog(): StreamLog {
  return { bytesSent: 0, finished: false, cancelled: false, firstByteAt: null };
}
