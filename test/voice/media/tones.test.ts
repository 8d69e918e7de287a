import { describe, expect, test } from "bun:test";
import { generateDtmf } from "../../../src/voice/media/dtmf.ts";
import { concatPcm, rmsDbfs } from "../../../src/voice/media/frames.ts";
import { type BeepEvent, BeepDetector, generateTone } from "../../../src/voice/media/tones.ts";
import { addNoise, dominantFrequency, framesOf, phrase, VOWELS, vowel } from "./signals.ts";

function beeps(pcm: Int16Array, sampleRate: number): BeepEvent[] {
  const detector = new BeepDetector({ sampleRate });
  const events = framesOf(pcm, sampleRate / 50).flatMap((frame) => [...detector.push(frame)]);
  const last = detector.finish();
  return last ? [...events, last] : events;
}

const silenceMs = (ms: number, sampleRate: number) => new Int16Array((ms * sampleRate) / 1000);

describe("generateTone", () => {
  test("gives the asked frequency, length and level", () => {
    const tone = generateTone(1000, 500, { sampleRate: 8000, amplitudeDbfs: -10 });
    expect(tone.length).toBe(4000);
    expect(dominantFrequency(tone, 8000, 500, 1500)).toBe(1000);
    // A sine's RMS is its peak − 3 dB.
    expect(Math.abs(rmsDbfs(tone) - -13)).toBeLessThan(0.2);
  });
});

describe("BeepDetector", () => {
  for (const sampleRate of [8000, 16000]) {
    test(`at ${sampleRate} Hz: a voicemail greeting's beep after speech, with its frequency and end`, () => {
      const greeting = phrase(sampleRate, 10, 2);
      const beepStartMs = (greeting.length / sampleRate) * 1000 + 300;
      const stream = concatPcm([greeting, silenceMs(300, sampleRate), generateTone(1000, 500, { sampleRate }), silenceMs(1000, sampleRate)]);
      const events = beeps(stream, sampleRate);
      expect(events.length).toBe(1);
      expect(events[0].frequencyHz).toBe(1000);
      expect(Math.abs(events[0].startMs - beepStartMs)).toBeLessThanOrEqual(12);
      expect(Math.abs(events[0].endMs - (beepStartMs + 500))).toBeLessThanOrEqual(12);
    });

    test(`at ${sampleRate} Hz: beeps across 800–2000 Hz, quiet or in noise`, () => {
      for (const frequency of [800, 950, 1200, 1400, 1700, 2000]) {
        const tone = generateTone(frequency, 250, { sampleRate, amplitudeDbfs: -30 });
        const [quiet] = beeps(concatPcm([silenceMs(100, sampleRate), tone, silenceMs(100, sampleRate)]), sampleRate);
        expect(Math.abs(quiet.frequencyHz - frequency)).toBeLessThanOrEqual(frequency * 0.005);
        // −10 dBFS tone, noise RMS 1000 (≈ −30 dBFS): ~17 dB SNR.
        const noisy = beeps(addNoise(concatPcm([silenceMs(200, sampleRate), generateTone(frequency, 300, { sampleRate }), silenceMs(200, sampleRate)]), 1000, frequency), sampleRate);
        expect(noisy.length).toBe(1);
        expect(Math.abs(noisy[0].frequencyHz - frequency)).toBeLessThanOrEqual(frequency * 0.01);
      }
    });

    test(`at ${sampleRate} Hz: short blips, DTMF, steady vowels and speech are not beeps`, () => {
      expect(beeps(concatPcm([silenceMs(200, sampleRate), generateTone(1000, 100, { sampleRate }), silenceMs(200, sampleRate)]), sampleRate)).toEqual([]);
      expect(beeps(generateDtmf("5", { sampleRate, toneMs: 600 }), sampleRate)).toEqual([]);
      expect(beeps(phrase(sampleRate, 150, 5), sampleRate)).toEqual([]);
      for (let f0 = 80; f0 < 300; f0 += 3) {
        for (const formants of Object.values(VOWELS)) {
          const found = beeps(vowel({ sampleRate, durationMs: 500, f0Start: f0, f0End: f0, formants }), sampleRate);
          if (found.length > 0) throw new Error(`vowel ${formants} at ${f0} Hz heard as a beep: ${JSON.stringify(found)}`);
        }
      }
    });
  }

  test("a tone still sounding at the end of the stream is reported by finish()", () => {
    const detector = new BeepDetector({ sampleRate: 8000 });
    for (const frame of framesOf(generateTone(1500, 400, { sampleRate: 8000, rampMs: 0 }), 160)) expect(detector.push(frame)).toEqual([]);
    expect(detector.finish()).toMatchObject({ frequencyHz: 1500, startMs: 0, endMs: 400 });
    expect(detector.finish()).toBeNull();
  });
});
