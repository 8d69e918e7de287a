import { describe, expect, test } from "bun:test";
import { RESAMPLER_USES_SIMD, StreamingResampler, resampleBuffer } from "../../../src/voice/media/resampler.ts";
import { dominantFrequency, framesOf, rms, seededRandom, sine, zeroCrossingFrequency } from "./signals.ts";

function pushAll(resampler: StreamingResampler, chunks: Int16Array[]): Int16Array {
  const outputs = chunks.map((chunk) => resampler.push(chunk));
  const out = new Int16Array(outputs.reduce((sum, o) => sum + o.length, 0));
  let offset = 0;
  for (const o of outputs) {
    out.set(o, offset);
    offset += o.length;
  }
  return out;
}

describe("StreamingResampler", () => {
  test("uses the SIMD build here", () => {
    expect(RESAMPLER_USES_SIMD).toBe(true);
  });

  test("a 440 Hz sine at 8 kHz is still 440 Hz at 16 kHz, 320 samples per 20 ms frame", () => {
    using resampler = new StreamingResampler({ fromRate: 8000, toRate: 16000 });
    const frames = framesOf(sine(440, 1000, 8000), 160);
    const outputs = frames.map((frame) => resampler.push(frame));
    for (const output of outputs) expect(output.length).toBe(320);
    const steady = new Int16Array(outputs.slice(5).flatMap((o) => Array.from(o)));
    expect(Math.abs(zeroCrossingFrequency(steady, 16000) - 440)).toBeLessThan(0.5);
    expect(dominantFrequency(steady, 16000, 300, 600)).toBe(440);
    // Same level after conversion (a sine of amplitude 10000 has RMS 7071).
    expect(Math.abs(rms(steady) - 7071)).toBeLessThan(150);
  });

  test("frequency is preserved between telephony, TTS and wideband rates", () => {
    const cases: [number, number, number][] = [
      [16000, 8000, 1000],
      [22050, 16000, 1500],
      [24000, 8000, 700],
      [48000, 16000, 3000],
      [16000, 48000, 2500],
      [8000, 22050, 300],
    ];
    for (const [fromRate, toRate, frequency] of cases) {
      using resampler = new StreamingResampler({ fromRate, toRate });
      const input = sine(frequency, 1000, fromRate);
      const output = pushAll(resampler, framesOf(input, fromRate / 50));
      expect(Math.abs(output.length - toRate)).toBeLessThanOrEqual(2);
      const steady = output.subarray(toRate / 10);
      expect(Math.abs(zeroCrossingFrequency(steady, toRate) - frequency)).toBeLessThan(1);
    }
  });

  test("downsampling filters out what the new rate cannot carry (no aliasing)", () => {
    using resampler = new StreamingResampler({ fromRate: 16000, toRate: 8000 });
    // 5 kHz would fold to 3 kHz at 8 kHz without the anti-alias filter.
    const output = resampler.push(sine(5000, 500, 16000, 10000));
    expect(20 * Math.log10(rms(output.subarray(400)) / 7071)).toBeLessThan(-50);
  });

  test("streaming in 20 ms frames or odd chunks equals converting all at once", () => {
    const input = new Int16Array(22050 * 2);
    const random = seededRandom(5);
    for (let i = 0; i < input.length; i++) input[i] = Math.round(6000 * Math.sin(i / 7) + 3000 * (random() - 0.5));
    for (const [fromRate, toRate] of [[22050, 16000], [8000, 16000], [16000, 8000], [24000, 8000]]) {
      const signal = input.subarray(0, fromRate * 2);
      const whole = pushAll(new StreamingResampler({ fromRate, toRate }), [signal]);
      const framed = pushAll(new StreamingResampler({ fromRate, toRate }), framesOf(signal, Math.round(fromRate / 50)));
      const chunks: Int16Array[] = [];
      for (let i = 0; i < signal.length; ) {
        const size = 1 + Math.floor(random() * 700);
        chunks.push(signal.subarray(i, i + size));
        i += size;
      }
      const ragged = pushAll(new StreamingResampler({ fromRate, toRate }), chunks);
      const wholeFramed = whole.subarray(0, framed.length);
      expect(framed.length).toBeGreaterThan(whole.length - toRate / 50);
      expect(Array.from(framed)).toEqual(Array.from(wholeFramed));
      expect(Array.from(ragged)).toEqual(Array.from(whole));
    }
  });

  test("pushInto fills a caller's buffer; flush gives the delayed tail", () => {
    using resampler = new StreamingResampler({ fromRate: 8000, toRate: 16000 });
    const output = new Int16Array(resampler.maxOutputSamples(160));
    expect(resampler.pushInto(sine(440, 20, 8000), output)).toBe(320);
    expect(resampler.latencySamples).toBeGreaterThan(0);
    expect(resampler.flush().length).toBeGreaterThan(0);
    expect(() => resampler.pushInto(new Int16Array(160), new Int16Array(10))).toThrow(RangeError);
  });

  test("equal rates pass audio through; bad options are refused; use after free throws", () => {
    const same = new StreamingResampler({ fromRate: 16000, toRate: 16000 });
    const frame = sine(300, 20, 16000);
    expect(same.push(frame)).toEqual(frame);
    expect(() => new StreamingResampler({ fromRate: 0, toRate: 8000 })).toThrow(RangeError);
    expect(() => new StreamingResampler({ fromRate: 8000, toRate: 16000, quality: 11 })).toThrow(RangeError);
    const resampler = new StreamingResampler({ fromRate: 8000, toRate: 16000 });
    resampler.free();
    resampler.free();
    expect(() => resampler.push(frame)).toThrow("after free");
  });

  test("a thousand calls' resamplers can be created and freed", () => {
    for (let round = 0; round < 3; round++) {
      const resamplers = Array.from({ length: 1000 }, () => new StreamingResampler({ fromRate: 8000, toRate: 16000 }));
      for (const r of resamplers) r.push(new Int16Array(160));
      for (const r of resamplers) r.free();
    }
  });
});

describe("resampleBuffer", () => {
  test("returns the exact length, time-aligned with the input", () => {
    const input = sine(440, 500, 8000, 10000);
    const output = resampleBuffer(input, 8000, 16000);
    expect(output.length).toBe(8000);
    const ideal = sine(440, 500, 16000, 10000);
    let error = 0;
    for (let i = 800; i < 7200; i++) error = Math.max(error, Math.abs(output[i] - ideal[i]));
    expect(error).toBeLessThan(300);
    expect(resampleBuffer(input, 8000, 22050).length).toBe(11025);
    expect(resampleBuffer(new Int16Array(0), 8000, 16000).length).toBe(0);
  });
});
