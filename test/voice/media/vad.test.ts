import { describe, expect, test } from "bun:test";
import { VoiceActivityDetector } from "../../../src/voice/media/vad.ts";
import { addNoise, framesOf, phrase, whiteNoise } from "./signals.ts";

function speechFrames(vad: VoiceActivityDetector, pcm: Int16Array, frameMs = 20): boolean[] {
  return framesOf(pcm, (vad.sampleRate * frameMs) / 1000).map((frame) => vad.isSpeech(frame));
}

const share = (decisions: boolean[]) => decisions.filter(Boolean).length / decisions.length;

describe("VoiceActivityDetector", () => {
  for (const sampleRate of [8000, 16000]) {
    test(`at ${sampleRate} Hz: synthetic speech is speech, silence is not`, () => {
      using vad = new VoiceActivityDetector({ sampleRate, mode: 2 });
      expect(share(speechFrames(vad, new Int16Array(sampleRate)))).toBe(0);
      expect(share(speechFrames(vad, phrase(sampleRate, 8)))).toBeGreaterThan(0.9);
      // A few frames of hang-over after speech, then silence again.
      const after = speechFrames(vad, new Int16Array(sampleRate));
      expect(after.slice(15).some(Boolean)).toBe(false);
    });

    test(`at ${sampleRate} Hz: steady line noise is learnt and ignored; speech over it is not`, () => {
      using vad = new VoiceActivityDetector({ sampleRate, mode: 3 });
      const noise = speechFrames(vad, whiteNoise(sampleRate * 2, 300, 9)); // about −41 dBFS
      expect(share(noise.slice(25))).toBeLessThan(0.05);
      expect(share(speechFrames(vad, addNoise(phrase(sampleRate, 6, 4), 300)))).toBeGreaterThan(0.9);
    });
  }

  test("takes 10, 20 and 30 ms frames and refuses other lengths and rates", () => {
    using vad = new VoiceActivityDetector({ sampleRate: 8000 });
    const speech = phrase(8000, 3);
    for (const ms of [10, 20, 30]) expect(share(speechFrames(vad, speech, ms))).toBeGreaterThan(0.8);
    expect(() => vad.isSpeech(new Int16Array(100))).toThrow(RangeError);
    expect(() => new VoiceActivityDetector({ sampleRate: 11025 })).toThrow(RangeError);
    expect(() => new VoiceActivityDetector({ sampleRate: 8000, mode: 4 as 0 })).toThrow(RangeError);
  });

  test("mode changes and reset keep the detector usable; use after free throws", () => {
    const vad = new VoiceActivityDetector({ sampleRate: 16000, mode: 0 });
    vad.setMode(3);
    expect(vad.mode).toBe(3);
    vad.reset();
    expect(share(speechFrames(vad, phrase(16000, 4)))).toBeGreaterThan(0.9);
    vad.free();
    vad.free();
    expect(() => vad.isSpeech(new Int16Array(320))).toThrow("after free");
  });

  test("a thousand detectors (one per call) are cheap to hold", () => {
    const detectors = Array.from({ length: 1000 }, () => new VoiceActivityDetector({ sampleRate: 8000 }));
    for (const vad of detectors) vad.isSpeech(new Int16Array(160));
    for (const vad of detectors) vad.free();
  });
});
