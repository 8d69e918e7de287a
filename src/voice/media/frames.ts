// Frame arithmetic and levels for PCM16 mono audio. Calls move in 20 ms frames: 160 samples at
// 8 kHz, 320 at 16 kHz. Levels are dBFS against a full-scale square wave (RMS 32768 = 0 dBFS), so
// a full-scale sine reads −3.01 dBFS.

export const FRAME_MS = 20;

/** Samples in one frame of `frameMs` at `sampleRate` (e.g. 320 for 20 ms at 16 kHz). */
export function samplesPerFrame(sampleRate: number, frameMs: number = FRAME_MS): number {
  const samples = (sampleRate * frameMs) / 1000;
  if (!Number.isInteger(samples)) throw new RangeError(`${frameMs} ms at ${sampleRate} Hz is not a whole number of samples`);
  return samples;
}

export function durationMs(samples: number, sampleRate: number): number {
  return (samples * 1000) / sampleRate;
}

export function samplesForMs(ms: number, sampleRate: number): number {
  return Math.round((ms * sampleRate) / 1000);
}

/** RMS level in dBFS; −Infinity for digital silence. */
export function rmsDbfs(pcm: Int16Array): number {
  if (pcm.length === 0) return -Infinity;
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i] * pcm[i];
  return sum === 0 ? -Infinity : 10 * Math.log10(sum / pcm.length / (32768 * 32768));
}

/** Peak level in dBFS; −Infinity for digital silence. */
export function peakDbfs(pcm: Int16Array): number {
  let peak = 0;
  for (let i = 0; i < pcm.length; i++) {
    const magnitude = pcm[i] < 0 ? -pcm[i] : pcm[i];
    if (magnitude > peak) peak = magnitude;
  }
  return peak === 0 ? -Infinity : 20 * Math.log10(peak / 32768);
}

export function dbToGain(db: number): number {
  return Math.pow(10, db / 20);
}

/** Scales `pcm` by `gainDb`, saturating; writes into `output` (default: in place). */
export function applyGain(pcm: Int16Array, gainDb: number, output: Int16Array = pcm): Int16Array {
  const gain = dbToGain(gainDb);
  for (let i = 0; i < pcm.length; i++) {
    const value = Math.round(pcm[i] * gain);
    output[i] = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
  }
  return output;
}

/** Adds `source × gain` into `target` sample by sample (as far as both reach), saturating. */
export function mixInto(target: Int16Array, source: Int16Array, gain = 1): Int16Array {
  const length = Math.min(target.length, source.length);
  for (let i = 0; i < length; i++) {
    const value = target[i] + Math.round(source[i] * gain);
    target[i] = value > 32767 ? 32767 : value < -32768 ? -32768 : value;
  }
  return target;
}

/** A zeroed frame; `frameMs` of audio at `sampleRate`. */
export function silentFrame(sampleRate: number, frameMs: number = FRAME_MS): Int16Array {
  return new Int16Array(samplesPerFrame(sampleRate, frameMs));
}

export function concatPcm(chunks: readonly Int16Array[]): Int16Array {
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const out = new Int16Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}
