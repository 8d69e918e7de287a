// The Goertzel algorithm: the power of one frequency in a block of samples, in O(N) with no FFT.
// Cheaper than an FFT when only a handful of frequencies matter (DTMF's eight).

/** The recurrence coefficient 2·cos(2πf/fs) for `frequencyHz` at `sampleRate`. */
export function goertzelCoefficient(frequencyHz: number, sampleRate: number): number {
  return 2 * Math.cos((2 * Math.PI * frequencyHz) / sampleRate);
}

/**
 * |X(f)|² of `samples[start, start + length)`. A sine of amplitude A at exactly f gives (A·N/2)²,
 * so `2·power/N²` is that sine's mean square.
 */
export function goertzelPower(samples: ArrayLike<number>, start: number, length: number, coefficient: number): number {
  let s1 = 0;
  let s2 = 0;
  for (let i = start; i < start + length; i++) {
    const s0 = samples[i] + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}
