// Test signals made in code, so the media tests need no recordings and no speech synthesiser:
// sines, seeded noise, and formant-synthesised "speech" (a glottal pulse train with a moving pitch
// through vocal-tract resonances), which the WebRTC VAD takes for a voice.
import { goertzelCoefficient, goertzelPower } from "../../../src/voice/media/goertzel.ts";

/** A small deterministic PRNG (mulberry32), so noisy tests are repeatable. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function sine(frequencyHz: number, durationMs: number, sampleRate: number, amplitude = 10000, phase = 0): Int16Array {
  const out = new Int16Array(Math.round((durationMs * sampleRate) / 1000));
  for (let i = 0; i < out.length; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * frequencyHz * i) / sampleRate + phase));
  return out;
}

/** Gaussian-ish white noise (sum of uniforms) with RMS `rms`. */
export function whiteNoise(samples: number, rms: number, seed = 1): Int16Array {
  const random = seededRandom(seed);
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++) {
    const g = (random() + random() + random() + random() - 2) * Math.sqrt(3); // unit variance
    out[i] = Math.max(-32768, Math.min(32767, Math.round(g * rms)));
  }
  return out;
}

/** `signal + noise`, saturating, into a new array. */
export function addNoise(signal: Int16Array, rms: number, seed = 7): Int16Array {
  const noise = whiteNoise(signal.length, rms, seed);
  const out = new Int16Array(signal.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.max(-32768, Math.min(32767, signal[i] + noise[i]));
  return out;
}

export function rms(pcm: Int16Array): number {
  let sum = 0;
  for (let i = 0; i < pcm.length; i++) sum += pcm[i] * pcm[i];
  return Math.sqrt(sum / Math.max(1, pcm.length));
}

/** Formant frequencies (Hz) of a few vowels (Peterson & Barney, male averages). */
export const VOWELS = {
  a: [730, 1090, 2440],
  e: [530, 1840, 2480],
  i: [270, 2290, 3010],
  o: [570, 840, 2410],
  u: [300, 870, 2240],
} as const;

export interface VowelOptions {
  sampleRate: number;
  durationMs: number;
  /** Pitch at the start and end (it glides between), with a little vibrato. */
  f0Start?: number;
  f0End?: number;
  formants?: readonly number[];
  /** Peak level of the result. Default 8000. */
  peak?: number;
  seed?: number;
}

/** One voiced syllable: a pulse train at a gliding pitch through three formant resonators. */
export function vowel(options: VowelOptions): Int16Array {
  const { sampleRate, durationMs } = options;
  const n = Math.round((durationMs * sampleRate) / 1000);
  const f0Start = options.f0Start ?? 120;
  const f0End = options.f0End ?? 100;
  const formants = options.formants ?? VOWELS.a;
  const random = seededRandom(options.seed ?? 3);
  const source = new Float64Array(n);
  let phase = 0;
  for (let i = 0; i < n; i++) {
    const t = i / sampleRate;
    const f0 = (f0Start + ((f0End - f0Start) * i) / n) * (1 + 0.02 * Math.sin(2 * Math.PI * 5.5 * t));
    phase += f0 / sampleRate;
    // A glottal pulse at each period (a falling edge), plus a little breath noise.
    if (phase >= 1) {
      phase -= 1;
      source[i] += 1;
    }
    source[i] += 0.02 * (random() - 0.5);
  }
  let signal = source;
  for (let k = 0; k < formants.length; k++) {
    const frequency = formants[k];
    if (frequency >= sampleRate / 2) continue;
    const bandwidth = 60 + 40 * k;
    const r = Math.exp((-Math.PI * bandwidth) / sampleRate);
    const a1 = 2 * r * Math.cos((2 * Math.PI * frequency) / sampleRate);
    const a2 = -r * r;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = signal[i] + a1 * (i > 0 ? out[i - 1] : 0) + a2 * (i > 1 ? out[i - 2] : 0);
    signal = out;
  }
  // Syllable envelope: 30 ms rise, 60 ms fall.
  const rise = Math.round(0.03 * sampleRate);
  const fall = Math.round(0.06 * sampleRate);
  let peak = 0;
  for (let i = 0; i < n; i++) {
    const envelope = Math.min(1, i / rise, (n - 1 - i) / fall);
    signal[i] *= Math.max(0, envelope);
    peak = Math.max(peak, Math.abs(signal[i]));
  }
  const scale = (options.peak ?? 8000) / (peak || 1);
  return Int16Array.from(signal, (v) => Math.round(v * scale));
}

/** A few syllables with short pauses between them, like a spoken phrase. */
export function phrase(sampleRate: number, syllables: number, seed = 11): Int16Array {
  const random = seededRandom(seed);
  const names = Object.keys(VOWELS) as (keyof typeof VOWELS)[];
  const parts: Int16Array[] = [];
  for (let s = 0; s < syllables; s++) {
    const name = names[Math.floor(random() * names.length)];
    const f0 = 100 + random() * 120;
    parts.push(vowel({ sampleRate, durationMs: 180 + random() * 140, f0Start: f0, f0End: f0 * (0.85 + random() * 0.2), formants: VOWELS[name], seed: s + seed }));
    if (s < syllables - 1) parts.push(new Int16Array(Math.round(((20 + random() * 40) * sampleRate) / 1000)));
  }
  const out = new Int16Array(parts.reduce((sum, p) => sum + p.length, 0));
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

/** Splits PCM (or G.711 bytes) into consecutive frames of `size` (the last partial one dropped). */
export function framesOf<T extends Int16Array | Uint8Array>(pcm: T, size: number): T[] {
  const frames: T[] = [];
  for (let i = 0; i + size <= pcm.length; i += size) frames.push(pcm.subarray(i, i + size) as T);
  return frames;
}

/** The frequency (from `lowHz` to `highHz`, 1 Hz steps) with the most Goertzel power. */
export function dominantFrequency(pcm: Int16Array, sampleRate: number, lowHz: number, highHz: number): number {
  let best = lowHz;
  let bestPower = -1;
  for (let f = lowHz; f <= highHz; f++) {
    const power = goertzelPower(pcm, 0, pcm.length, goertzelCoefficient(f, sampleRate));
    if (power > bestPower) {
      bestPower = power;
      best = f;
    }
  }
  return best;
}

/** Frequency from the rate of upward zero crossings. */
export function zeroCrossingFrequency(pcm: Int16Array, sampleRate: number): number {
  let crossings = 0;
  let first = -1;
  let last = -1;
  for (let i = 1; i < pcm.length; i++) {
    if (pcm[i - 1] < 0 && pcm[i] >= 0) {
      crossings++;
      if (first < 0) first = i;
      last = i;
    }
  }
  return crossings < 2 ? 0 : ((crossings - 1) * sampleRate) / (last - first);
}
