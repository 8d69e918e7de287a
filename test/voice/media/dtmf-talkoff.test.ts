// Talk-off: an hour of synthesised speech (Flite's five voices and espeak-ng's, at many speeds and
// pitches) must never be heard as a key press, on a µ-law phone line or at 16 kHz; while every key,
// pressed for 40 ms at ordinary levels, still is.
import { describe, expect, test } from "bun:test";
import { DtmfDetector, generateDtmf } from "../../../src/voice/media/dtmf.ts";
import { decodeG711, encodeG711 } from "../../../src/voice/media/g711.ts";
import { resample, talkOffCorpus } from "./talk-off-corpus.ts";

const MIN_SECONDS = 3600;
const heard = (pcm: Int16Array, sampleRate: number) => new DtmfDetector({ sampleRate }).push(pcm).map((e) => e.digit).join("");
const phoneLine = (pcm: Int16Array) => decodeG711("mulaw", encodeG711("mulaw", pcm));

describe("DTMF talk-off", () => {
  test(`${MIN_SECONDS / 3600} h of speech: 0 false digits at 8 kHz µ-law and at 16 kHz`, async () => {
    const parts = await talkOffCorpus(MIN_SECONDS);
    const seconds = parts.reduce((sum, part) => sum + part.pcm.length / part.sampleRate, 0);
    const voices = new Set(parts.map((part) => part.label.split(" ").slice(0, 2).join(" ")));
    console.log(`talk-off corpus: ${Math.round(seconds)} s of speech, ${parts.length} recordings, ${voices.size} voices`);
    expect(seconds).toBeGreaterThanOrEqual(MIN_SECONDS);
    expect([...voices].some((v) => v.startsWith("flite")) && [...voices].some((v) => v.startsWith("espeak-ng"))).toBe(true);
    const falseDigits: string[] = [];
    for (const part of parts) {
      const line = heard(phoneLine(resample(part.pcm, part.sampleRate, 8000)), 8000);
      const wide = heard(resample(part.pcm, part.sampleRate, 16000), 16000);
      if (line || wide) falseDigits.push(`${part.label}: "${line}" at 8 kHz µ-law, "${wide}" at 16 kHz`);
    }
    expect(falseDigits).toEqual([]);
  }, 240_000);

  for (const sampleRate of [8000, 16000]) {
    for (const level of [-20, -30]) {
      test(`every key, 40 ms on and 40 ms off at ${level} dBFS per tone, ${sampleRate === 8000 ? "8 kHz µ-law" : "16 kHz"}`, () => {
        const keys = "0123456789*#ABCD";
        const tones = generateDtmf(keys, { sampleRate, toneMs: 40, gapMs: 40, amplitudeDbfs: level });
        expect(heard(sampleRate === 8000 ? phoneLine(tones) : tones, sampleRate)).toBe(keys);
      });
    }
  }
});
