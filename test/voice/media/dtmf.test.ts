import { describe, expect, test } from "bun:test";
import { DtmfDetector, generateDtmf, isDtmfDigit } from "../../../src/voice/media/dtmf.ts";
import { decodeMulaw, encodeMulaw } from "../../../src/voice/media/g711.ts";
import { mixInto } from "../../../src/voice/media/frames.ts";
import { generateTone } from "../../../src/voice/media/tones.ts";
import { addNoise, framesOf, phrase, VOWELS, vowel, whiteNoise } from "./signals.ts";

function detect(pcm: Int16Array, sampleRate: number): { digit: string; atMs: number }[] {
  const detector = new DtmfDetector({ sampleRate });
  return framesOf(pcm, sampleRate / 50).flatMap((frame) => [...detector.push(frame)]);
}

const digitsOf = (pcm: Int16Array, sampleRate: number) => detect(pcm, sampleRate).map((e) => e.digit).join("");

describe("DTMF", () => {
  for (const sampleRate of [8000, 16000]) {
    test(`at ${sampleRate} Hz: every key of a generated sequence, once, at its start`, () => {
      const events = detect(generateDtmf("0123456789*#ABCD", { sampleRate }), sampleRate);
      expect(events.map((e) => e.digit).join("")).toBe("0123456789*#ABCD");
      // Each tone starts 140 ms after the previous one (80 ms tone + 60 ms gap).
      events.forEach((event, index) => expect(Math.abs(event.atMs - index * 140)).toBeLessThanOrEqual(13));
    });

    test(`at ${sampleRate} Hz: 40 ms tones with 40 ms gaps, repeated keys, and a held key`, () => {
      expect(digitsOf(generateDtmf("1155#", { sampleRate, toneMs: 40, gapMs: 40 }), sampleRate)).toBe("1155#");
      expect(digitsOf(generateDtmf("7", { sampleRate, toneMs: 2000 }), sampleRate)).toBe("7");
      // Shorter than Q.24's 23 ms "must reject": not a key press.
      expect(digitsOf(generateDtmf("3", { sampleRate, toneMs: 20 }), sampleRate)).toBe("");
    });

    test(`at ${sampleRate} Hz: through noise, quiet, twist and a G.711 round trip`, () => {
      const keys = "9182736450*#";
      expect(digitsOf(decodeMulaw(encodeMulaw(generateDtmf(keys, { sampleRate }))), sampleRate)).toBe(keys);
      // "5" (770 + 1336 Hz) with the high tone 6 dB down, then 3 dB up: within the twist limits.
      for (const highDb of [-16, -7]) {
        const tone = generateTone(770, 80, { sampleRate, amplitudeDbfs: -10 });
        mixInto(tone, generateTone(1336, 80, { sampleRate, amplitudeDbfs: highDb }));
        expect(digitsOf(new Int16Array([...tone, ...new Int16Array(sampleRate / 10)]), sampleRate)).toBe("5");
      }
      // A high tone 20 dB below the low one is not a digit.
      const lopsided = generateTone(770, 80, { sampleRate, amplitudeDbfs: -10 });
      mixInto(lopsided, generateTone(1336, 80, { sampleRate, amplitudeDbfs: -30 }));
      expect(digitsOf(lopsided, sampleRate)).toBe("");
      // Tones at −10 dBFS each; noise RMS 1500 (≈ −27 dBFS): about 14 dB SNR.
      expect(digitsOf(addNoise(generateDtmf(keys, { sampleRate }), 1500), sampleRate)).toBe(keys);
      expect(digitsOf(generateDtmf(keys, { sampleRate, amplitudeDbfs: -30 }), sampleRate)).toBe(keys);
      // Far too quiet (−50 dBFS per tone): ignored.
      expect(digitsOf(generateDtmf(keys, { sampleRate, amplitudeDbfs: -50 }), sampleRate)).toBe("");
    });

    test(`at ${sampleRate} Hz: nothing in silence, noise or speech-like sound`, () => {
      expect(digitsOf(new Int16Array(sampleRate * 3), sampleRate)).toBe("");
      expect(digitsOf(whiteNoise(sampleRate * 5, 3000), sampleRate)).toBe("");
      expect(digitsOf(phrase(sampleRate, 120, 3), sampleRate)).toBe("");
      // Steady vowels across the range of voice pitch: their harmonics pass every DTMF frequency.
      for (let f0 = 80; f0 < 300; f0 += 2.3) {
        for (const formants of Object.values(VOWELS)) {
          const found = digitsOf(vowel({ sampleRate, durationMs: 300, f0Start: f0, f0End: f0, formants }), sampleRate);
          if (found) throw new Error(`vowel ${formants} at ${f0} Hz heard as ${found}`);
        }
      }
    });
  }

  test("speech around digits does not hide or add any", () => {
    const sampleRate = 8000;
    const speech = phrase(sampleRate, 6, 8);
    const tones = generateDtmf("42", { sampleRate });
    const mixed = new Int16Array(speech.length * 2 + tones.length);
    mixed.set(speech);
    mixed.set(tones, speech.length);
    mixed.set(speech, speech.length + tones.length);
    expect(digitsOf(mixed, sampleRate)).toBe("42");
  });

  test("generation validates digits", () => {
    expect(isDtmfDigit("#")).toBe(true);
    expect(isDtmfDigit("E")).toBe(false);
    expect(() => generateDtmf("12x", { sampleRate: 8000 })).toThrow(RangeError);
    expect(generateDtmf("1", { sampleRate: 8000 }).length).toBe(1120);
  });
});
