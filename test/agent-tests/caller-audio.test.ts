// An uploaded WAV as the test caller plays it: mono at the line's 8 kHz, whatever it came as.
import { expect, test } from "bun:test";
import { wavAtLineRate } from "../../src/modules/agent-tests/runner/caller-voice.ts";
import { encodeWav } from "../../src/voice/media/wav-format.ts";

const base64 = (samples: Int16Array, sampleRate: number, channels: number) => Buffer.from(encodeWav(samples, { sampleRate, channels })).toString("base64");

/** A 400 Hz tone of `ms` at `rate`. */
function tone(ms: number, rate: number): Int16Array {
  return Int16Array.from({ length: (ms / 1000) * rate }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * 400 * i) / rate)));
}

test("8 kHz mono is taken as it is", () => {
  const pcm = tone(500, 8000);
  expect(wavAtLineRate(base64(pcm, 8000, 1))).toEqual(pcm);
});

test("48 kHz becomes 8 kHz of the same length", () => {
  const line = wavAtLineRate(base64(tone(1000, 48_000), 48_000, 1));
  expect(Math.abs(line.length - 8000)).toBeLessThanOrEqual(16);
  // The tone survives: still loud in the middle.
  expect(Math.max(...line.subarray(3000, 5000))).toBeGreaterThan(6000);
});

test("stereo: the first channel, not a mix (a mix of channels out of phase would be silence)", () => {
  const left = tone(500, 8000);
  const stereo = new Int16Array(left.length * 2);
  left.forEach((sample, i) => {
    stereo[2 * i] = sample;
    stereo[2 * i + 1] = -sample;
  });
  expect(wavAtLineRate(base64(stereo, 8000, 2))).toEqual(left);
});
