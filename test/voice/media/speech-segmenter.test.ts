import { describe, expect, test } from "bun:test";
import { type SpeechSegmentEvent, SpeechSegmenter } from "../../../src/voice/media/speech-segmenter.ts";
import { VoiceActivityDetector } from "../../../src/voice/media/vad.ts";
import { framesOf, phrase } from "./signals.ts";

/** Frames at 8 kHz whose first sample holds the frame number, so handed-over audio can be traced. */
function numberedFrame(index: number): Int16Array {
  const frame = new Int16Array(160);
  frame.fill(index);
  return frame;
}

function run(segmenter: SpeechSegmenter, pattern: string): { frame: number; event: SpeechSegmentEvent }[] {
  const events: { frame: number; event: SpeechSegmentEvent }[] = [];
  [...pattern].forEach((mark, index) => {
    const event = segmenter.push(numberedFrame(index), mark === "S");
    if (event) events.push({ frame: index, event });
  });
  return events;
}

describe("SpeechSegmenter", () => {
  test("starts after the minimum speech, ends after the endpointing silence, with pre-roll", () => {
    const segmenter = new SpeechSegmenter({ sampleRate: 8000, minSpeechMs: 80, endpointingMs: 600, preRollMs: 200 });
    // 10 frames of silence (200 ms), 40 of speech (800 ms), 40 of silence.
    const events = run(segmenter, "-".repeat(10) + "S".repeat(40) + "-".repeat(40));
    expect(events.map((e) => [e.frame, e.event.type])).toEqual([
      [13, "speech_start"],
      [79, "speech_end"],
    ]);
    const start = events[0].event;
    if (start.type !== "speech_start") throw new Error("expected speech_start");
    expect([start.atMs, start.detectedAtMs]).toEqual([200, 280]);
    // 200 ms of pre-roll (frames 0–9) and the four speech frames that confirmed it (10–13).
    expect(start.audio.length).toBe(14 * 160);
    expect(start.audio[0]).toBe(0);
    expect(start.audio[start.audio.length - 1]).toBe(13);
    const end = events[1].event;
    expect(end).toEqual({ type: "speech_end", atMs: 1000, detectedAtMs: 1600, durationMs: 800 });
    expect(segmenter.speaking).toBe(false);
  });

  test("clicks shorter than the minimum and pauses shorter than the endpointing are ignored", () => {
    const segmenter = new SpeechSegmenter({ sampleRate: 8000, minSpeechMs: 100, endpointingMs: 400 });
    const pattern = "SS---S-SSS----" + "SSSSSS" + "-".repeat(15) + "SSSS" + "-".repeat(25);
    const events = run(segmenter, pattern);
    expect(events.map((e) => [e.frame, e.event.type])).toEqual([
      [18, "speech_start"],
      [58, "speech_end"],
    ]);
    // Speech from frame 14 (280 ms) to the end of frame 38 (780 ms); 400 ms later it is over.
    expect(events[1].event).toEqual({ type: "speech_end", atMs: 780, detectedAtMs: 1180, durationMs: 500 });
  });

  test("pre-roll never reaches before the stream began; endpointing can change mid-call", () => {
    const segmenter = new SpeechSegmenter({ sampleRate: 8000, minSpeechMs: 40, endpointingMs: 600, preRollMs: 300 });
    const [start] = run(segmenter, "-SS");
    expect(start.event).toMatchObject({ type: "speech_start", atMs: 20 });
    if (start.event.type === "speech_start") expect(start.event.audio.length).toBe(3 * 160);
    segmenter.endpointingMs = 200;
    expect(segmenter.endpointingMs).toBe(200);
    const events: SpeechSegmentEvent[] = [];
    for (let i = 0; i < 12; i++) {
      const event = segmenter.push(new Int16Array(160), false);
      if (event) events.push(event);
    }
    expect(events).toEqual([{ type: "speech_end", atMs: 60, detectedAtMs: 260, durationMs: 40 }]);
  });

  test("with the WebRTC VAD: one utterance per spoken phrase", () => {
    using vad = new VoiceActivityDetector({ sampleRate: 16000, mode: 2 });
    const segmenter = new SpeechSegmenter({ sampleRate: 16000, minSpeechMs: 80, endpointingMs: 600, preRollMs: 300 });
    const silence = new Int16Array(16000);
    const first = phrase(16000, 5, 21);
    const second = phrase(16000, 4, 22);
    const stream = new Int16Array(silence.length * 4 + first.length + second.length);
    stream.set(first, 16000);
    stream.set(second, 32000 + first.length);
    const events: SpeechSegmentEvent[] = [];
    for (const frame of framesOf(stream, 320)) {
      const event = segmenter.push(frame, vad.isSpeech(frame));
      if (event) events.push(event);
    }
    expect(events.map((e) => e.type)).toEqual(["speech_start", "speech_end", "speech_start", "speech_end"]);
    const firstMs = (first.length / 16000) * 1000;
    expect(Math.abs(events[0].atMs - 1000)).toBeLessThanOrEqual(40);
    // The VAD hangs on a little after speech; the segment ends within ~200 ms of the phrase.
    expect(events[1].atMs - (1000 + firstMs)).toBeLessThan(250);
    expect(events[1].atMs).toBeGreaterThan(1000 + firstMs - 60);
    const end = events[1];
    if (end.type === "speech_end") expect(end.detectedAtMs - end.atMs).toBeGreaterThanOrEqual(600);
  });
});
