import { describe, expect, test } from "bun:test";
import { PcmFramer } from "../../../src/voice/media/framer.ts";
import { applyGain, concatPcm, durationMs, mixInto, peakDbfs, rmsDbfs, samplesForMs, samplesPerFrame, silentFrame } from "../../../src/voice/media/frames.ts";
import { sine } from "./signals.ts";

describe("frame arithmetic and levels", () => {
  test("20 ms frames at the call rates", () => {
    expect([8000, 16000, 24000, 48000].map((rate) => samplesPerFrame(rate))).toEqual([160, 320, 480, 960]);
    expect(samplesPerFrame(8000, 10)).toBe(80);
    expect(samplesPerFrame(22050)).toBe(441);
    expect(() => samplesPerFrame(11025)).toThrow(RangeError);
    expect(samplesForMs(600, 22050)).toBe(13230);
    expect(durationMs(320, 16000)).toBe(20);
    expect(silentFrame(16000)).toEqual(new Int16Array(320));
  });

  test("dBFS of silence, a square wave and a sine", () => {
    expect(rmsDbfs(new Int16Array(160))).toBe(-Infinity);
    expect(peakDbfs(new Int16Array(160))).toBe(-Infinity);
    expect(rmsDbfs(new Int16Array(160).fill(-32768))).toBeCloseTo(0, 6);
    expect(rmsDbfs(sine(1000, 100, 8000, 32767))).toBeCloseTo(-3.01, 1);
    expect(peakDbfs(sine(1000, 100, 8000, 16384))).toBeCloseTo(-6.02, 1);
  });

  test("gain and mixing saturate instead of wrapping", () => {
    const loud = new Int16Array([20000, -20000, 100]);
    expect(applyGain(loud, 6, new Int16Array(3))).toEqual(new Int16Array([32767, -32768, 200]));
    expect(Array.from(applyGain(new Int16Array([1000]), -6.0206))).toEqual([500]);
    const target = new Int16Array([30000, -30000, 5, 7]);
    mixInto(target, new Int16Array([10000, -10000, 5]), 1);
    expect(target).toEqual(new Int16Array([32767, -32768, 10, 7]));
    expect(concatPcm([new Int16Array([1, 2]), new Int16Array(0), new Int16Array([3])])).toEqual(new Int16Array([1, 2, 3]));
  });
});

describe("PcmFramer", () => {
  test("cuts odd-sized chunks into whole frames and pads the last", () => {
    const framer = new PcmFramer(160);
    const input = Int16Array.from({ length: 1000 }, (_, i) => i);
    const frames: Int16Array[] = [];
    for (let i = 0; i < input.length; i += 77) {
      framer.push(input.subarray(i, i + 77));
      for (let frame = framer.next(); frame; frame = framer.next()) frames.push(frame);
    }
    expect(frames.length).toBe(6);
    expect(framer.pending).toBe(40);
    const last = framer.flush();
    expect(last?.subarray(0, 40)).toEqual(input.subarray(960));
    expect(last?.subarray(40).every((s) => s === 0)).toBe(true);
    expect(framer.flush()).toBeNull();
    expect(concatPcm(frames)).toEqual(input.subarray(0, 960));
    framer.push(new Int16Array(500));
    expect(framer.flush()?.length).toBe(160);
    framer.clear();
    expect(framer.pending).toBe(0);
  });
});
