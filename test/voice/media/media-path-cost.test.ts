// Measures the per-call cost of the full media path for one 20 ms frame and prints it; it asserts
// only that the path works, never a time, so it cannot flake on a busy machine.
//
// Per call and frame: caller µ-law 8 kHz → PCM → 16 kHz → VAD + segmenter, DTMF on the 8 kHz PCM,
// both sides into the 16 kHz stereo recording; agent 16 kHz → 8 kHz → µ-law.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DtmfDetector } from "../../../src/voice/media/dtmf.ts";
import { decodeMulaw, encodeMulaw } from "../../../src/voice/media/g711.ts";
import { StreamingResampler } from "../../../src/voice/media/resampler.ts";
import { SpeechSegmenter } from "../../../src/voice/media/speech-segmenter.ts";
import { VoiceActivityDetector } from "../../../src/voice/media/vad.ts";
import { StereoWavWriter } from "../../../src/voice/media/wav-writer.ts";
import { framesOf, phrase } from "./signals.ts";

const dir = mkdtempSync(join(tmpdir(), "parley-media-cost-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CALLS = 100;
const SECONDS = 4;

class CallMedia {
  readonly up = new StreamingResampler({ fromRate: 8000, toRate: 16000 });
  readonly down = new StreamingResampler({ fromRate: 16000, toRate: 8000 });
  readonly vad = new VoiceActivityDetector({ sampleRate: 16000, mode: 2 });
  readonly segmenter = new SpeechSegmenter({ sampleRate: 16000 });
  readonly dtmf = new DtmfDetector({ sampleRate: 8000 });
  readonly recording: StereoWavWriter;
  readonly caller8k = new Int16Array(160);
  readonly caller16k = new Int16Array(330);
  readonly agent8k = new Int16Array(170);
  readonly agentUlaw = new Uint8Array(160);
  events = 0;

  constructor(index: number) {
    this.recording = new StereoWavWriter(join(dir, `call-${index}.wav`), { sampleRate: 16000 });
  }

  frame(callerUlaw: Uint8Array, agent16k: Int16Array): void {
    decodeMulaw(callerUlaw, this.caller8k);
    if (this.dtmf.push(this.caller8k).length > 0) this.events++;
    const n = this.up.pushInto(this.caller8k, this.caller16k);
    const caller = this.caller16k.subarray(0, n);
    if (this.segmenter.push(caller, this.vad.isSpeech(caller))) this.events++;
    this.recording.write("caller", caller);
    this.recording.write("agent", agent16k);
    const m = this.down.pushInto(agent16k, this.agent8k);
    encodeMulaw(this.agent8k.subarray(0, m), this.agentUlaw);
  }

  close(): void {
    this.recording.close();
    this.up.free();
    this.down.free();
    this.vad.free();
  }
}

function time(label: string, frames: number, run: () => void): number {
  const started = performance.now();
  run();
  const microseconds = ((performance.now() - started) * 1000) / frames;
  console.log(`media path: ${label.padEnd(34)} ${microseconds.toFixed(2).padStart(7)} µs per call-frame`);
  return microseconds;
}

test("the full media path, per call and 20 ms frame", () => {
  const speech8k = phrase(8000, 12, 5);
  const callerFrames = framesOf(encodeMulaw(speech8k), 160);
  const agentFrames = framesOf(phrase(16000, 12, 6), 320);
  const frameCount = (SECONDS * 1000) / 20;

  const calls = Array.from({ length: CALLS }, (_, i) => new CallMedia(i));
  // Warm up the JIT, then interleave calls frame by frame as the runtime would.
  for (let f = 0; f < 50; f++) for (const call of calls) call.frame(callerFrames[f % callerFrames.length], agentFrames[f % agentFrames.length]);
  const total = time(`all stages (${CALLS} calls × ${SECONDS} s)`, CALLS * frameCount, () => {
    for (let f = 0; f < frameCount; f++) {
      for (const call of calls) call.frame(callerFrames[f % callerFrames.length], agentFrames[f % agentFrames.length]);
    }
  });

  // Each stage alone, on one call, for the breakdown.
  const call = calls[0];
  const n = 20_000;
  const ulaw = callerFrames[10];
  const pcm8k = decodeMulaw(ulaw);
  const pcm16k = call.up.push(pcm8k);
  time("G.711 µ-law decode (160)", n, () => { for (let i = 0; i < n; i++) decodeMulaw(ulaw, call.caller8k); });
  time("resample 8k → 16k", n, () => { for (let i = 0; i < n; i++) call.up.pushInto(pcm8k, call.caller16k); });
  time("VAD (16 kHz, 20 ms)", n, () => { for (let i = 0; i < n; i++) call.vad.isSpeech(pcm16k); });
  time("DTMF detector (8 kHz)", n, () => { for (let i = 0; i < n; i++) call.dtmf.push(pcm8k); });
  time("resample 16k → 8k", n, () => { for (let i = 0; i < n; i++) call.down.pushInto(pcm16k, call.agent8k); });
  time("G.711 µ-law encode (160)", n, () => { for (let i = 0; i < n; i++) encodeMulaw(pcm8k, call.agentUlaw); });
  time("recording, both sides (16 kHz)", n, () => {
    for (let i = 0; i < n; i++) {
      call.recording.write("caller", pcm16k);
      call.recording.write("agent", pcm16k);
    }
  });

  const perCore = Math.floor(20_000 / total);
  console.log(`media path: one core fits ${perCore} calls' frames in 20 ms (${(total / 20_000 * 100).toFixed(3)}% of a core per call)`);

  for (const c of calls) c.close();
  // Every call heard the caller start speaking.
  expect(calls.reduce((sum, c) => sum + c.events, 0)).toBeGreaterThanOrEqual(CALLS);
});
