import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeWav, encodeWav, wavHeader } from "../../../src/voice/media/wav-format.ts";
import { WavFileReader, readWavFile } from "../../../src/voice/media/wav-reader.ts";
import { StereoWavWriter } from "../../../src/voice/media/wav-writer.ts";
import { framesOf, seededRandom, sine } from "./signals.ts";

const dir = mkdtempSync(join(tmpdir(), "parley-wav-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function channel(samples: Int16Array, index: 0 | 1): Int16Array {
  return Int16Array.from({ length: samples.length / 2 }, (_, i) => samples[2 * i + index]);
}

describe("StereoWavWriter", () => {
  test("caller frames on the left, agent bursts on the right, silence between", () => {
    const path = join(dir, "call.wav");
    const recording = new StereoWavWriter(path, { sampleRate: 8000, flushMs: 100 });
    const caller = sine(300, 3000, 8000, 5000);
    const agentSpeech = sine(1000, 600, 8000, 7000);
    const callerFrames = framesOf(caller, 160);
    callerFrames.forEach((frame, index) => {
      recording.write("caller", frame);
      // The agent's audio arrives in one burst ahead of its playout at 1.0 s.
      if (index === 20) recording.writeAtMs("agent", agentSpeech, 1000);
    });
    expect(recording.durationMs).toBe(3000);
    const summary = recording.close();
    expect(summary).toEqual({ path, durationMs: 3000, bytes: 44 + 3000 * 8 * 4 });
    const { info, samples } = readWavFile(path);
    expect(info).toMatchObject({ sampleRate: 8000, channels: 2, frames: 24000, durationMs: 3000 });
    expect(statSync(path).size).toBe(summary.bytes);
    expect(channel(samples, 0)).toEqual(caller);
    const right = channel(samples, 1);
    expect(right.subarray(0, 8000).every((s) => s === 0)).toBe(true);
    expect(right.subarray(8000, 8000 + agentSpeech.length)).toEqual(agentSpeech);
    expect(right.subarray(8000 + agentSpeech.length).every((s) => s === 0)).toBe(true);
  });

  test("a side that stops is filled with silence and the file grows as the other goes on", () => {
    const path = join(dir, "one-sided.wav");
    const recording = new StereoWavWriter(path, { sampleRate: 16000, flushMs: 200, maxSkewMs: 1000 });
    recording.write("agent", sine(500, 200, 16000));
    const caller = sine(700, 5000, 16000, 4000);
    for (const frame of framesOf(caller, 320)) recording.write("caller", frame);
    // Everything but the last ~1 s (the allowed skew) is already on disk, with a valid header.
    const midway = readWavFile(path);
    expect(midway.info.durationMs).toBeGreaterThanOrEqual(3800);
    expect(midway.info.durationMs).toBeLessThanOrEqual(4000);
    expect(channel(midway.samples, 0)).toEqual(caller.subarray(0, midway.info.frames));
    recording.close();
    const { info, samples } = readWavFile(path);
    expect(info.durationMs).toBe(5000);
    expect(channel(samples, 1).subarray(3200).every((s) => s === 0)).toBe(true);
    expect(channel(samples, 0)).toEqual(caller);
  });

  test("audio arriving late for a stretch already on disk is patched in", () => {
    const path = join(dir, "late.wav");
    const recording = new StereoWavWriter(path, { sampleRate: 8000, flushMs: 20, maxSkewMs: 100 });
    const agent = sine(800, 2000, 8000, 6000);
    for (const frame of framesOf(agent, 160)) recording.write("agent", frame);
    // The caller's first second turns up only now (a jitter buffer let go of it late).
    const caller = sine(250, 1000, 8000, 3000);
    recording.writeAt("caller", caller, 0);
    // And a write that straddles what is on disk and what is pending.
    const straddle = sine(400, 400, 8000, 2000);
    recording.writeAtMs("caller", straddle, 1800);
    recording.close();
    const { samples } = readWavFile(path);
    const left = channel(samples, 0);
    const right = channel(samples, 1);
    expect(right.subarray(0, agent.length)).toEqual(agent);
    expect(right.subarray(agent.length).every((s) => s === 0)).toBe(true);
    expect(left.subarray(0, 8000)).toEqual(caller);
    expect(left.subarray(8000, 14400).every((s) => s === 0)).toBe(true);
    expect(left.subarray(14400, 14400 + straddle.length)).toEqual(straddle);
    expect(left.length).toBe(14400 + straddle.length);
  });

  test("a far jump writes silence in blocks; negative offsets are clipped; closed is closed", () => {
    const path = join(dir, "jump.wav");
    const recording = new StereoWavWriter(path, { sampleRate: 8000 });
    recording.writeAt("caller", new Int16Array(160).fill(1000), -80);
    recording.writeAtMs("agent", new Int16Array(160).fill(-1000), 60_000);
    recording.close();
    const { info, samples } = readWavFile(path);
    expect(info.frames).toBe(8000 * 60 + 160);
    expect(samples[0]).toBe(1000);
    expect(samples[2 * 80]).toBe(0);
    expect(samples[2 * 8000 * 60 + 1]).toBe(-1000);
    expect(() => recording.write("caller", new Int16Array(160))).toThrow("closed");
  });

  test("random uneven arrival on both sides equals the two timelines", () => {
    const path = join(dir, "uneven.wav");
    const random = seededRandom(42);
    const recording = new StereoWavWriter(path, { sampleRate: 16000, flushMs: 60, maxSkewMs: 300 });
    const length = 16000 * 4;
    const expected = [new Int16Array(length), new Int16Array(length)];
    for (let step = 0; step < 400; step++) {
      const side = random() < 0.5 ? "caller" : "agent";
      const at = Math.floor(random() * (length - 2000));
      const pcm = Int16Array.from({ length: 1 + Math.floor(random() * 1500) }, () => Math.floor(random() * 20000) - 10000);
      recording.writeAt(side, pcm, at);
      expected[side === "caller" ? 0 : 1].set(pcm, at);
    }
    recording.close();
    const { samples } = readWavFile(path);
    const frames = samples.length / 2;
    expect(channel(samples, 0)).toEqual(expected[0].subarray(0, frames));
    expect(channel(samples, 1)).toEqual(expected[1].subarray(0, frames));
  });
});

describe("WAV reading", () => {
  test("reads extra chunks, WAVE_FORMAT_EXTENSIBLE and unfinished sizes; refuses other encodings", () => {
    const pcm = sine(440, 100, 8000);
    const plain = encodeWav(pcm, { sampleRate: 8000, channels: 1 });
    expect(decodeWav(plain).samples).toEqual(pcm);

    // A LIST chunk (odd size, padded) before "data".
    const list = new Uint8Array([...new TextEncoder().encode("LIST"), 5, 0, 0, 0, 1, 2, 3, 4, 5, 0]);
    const withList = new Uint8Array([...plain.subarray(0, 36), ...list, ...plain.subarray(36)]);
    expect(decodeWav(withList).samples).toEqual(pcm);

    // Extensible fmt chunk (40 bytes) whose sub-format is PCM.
    const ext = new Uint8Array(12 + 8 + 40 + 8 + pcm.byteLength);
    const view = new DataView(ext.buffer);
    ext.set(plain.subarray(0, 12));
    ext.set(new TextEncoder().encode("fmt "), 12);
    view.setUint32(16, 40, true);
    view.setUint16(20, 0xfffe, true);
    view.setUint16(22, 1, true);
    view.setUint32(24, 8000, true);
    view.setUint32(28, 16000, true);
    view.setUint16(32, 2, true);
    view.setUint16(34, 16, true);
    view.setUint16(36, 22, true);
    view.setUint16(44, 1, true); // sub-format GUID starts with 0x0001 (PCM)
    ext.set(new TextEncoder().encode("data"), 60);
    view.setUint32(64, 0xffffffff, true); // size never written
    ext.set(new Uint8Array(pcm.buffer), 68);
    const decoded = decodeWav(ext);
    expect(decoded.info.frames).toBe(pcm.length);
    expect(decoded.samples).toEqual(pcm);

    const mulaw = encodeWav(pcm, { sampleRate: 8000, channels: 1 });
    new DataView(mulaw.buffer).setUint16(20, 7, true);
    expect(() => decodeWav(mulaw)).toThrow("only 16-bit PCM");
    expect(() => decodeWav(new Uint8Array(44))).toThrow("not a RIFF/WAVE");
    expect(wavHeader({ sampleRate: 16000, channels: 2 }, 0).length).toBe(44);
  });

  test("WavFileReader reads in blocks what readWavFile reads whole, even from a truncated file", () => {
    const path = join(dir, "blocks.wav");
    const pcm = Int16Array.from({ length: 2 * 5000 }, (_, i) => (i * 37) % 30000);
    const bytes = encodeWav(pcm, { sampleRate: 16000, channels: 2 });
    writeFileSync(path, bytes);
    using reader = new WavFileReader(path);
    const blocks: number[] = [];
    for (let block = reader.read(1152); block; block = reader.read(1152)) blocks.push(...block);
    expect(blocks).toEqual(Array.from(readWavFile(path).samples));

    // Cut mid-sample: the header still says 20000 bytes; only whole frames come back.
    writeFileSync(path, bytes.subarray(0, 44 + 4 * 1000 + 3));
    using short = new WavFileReader(path);
    expect(short.info.frames).toBe(1000);
    expect(short.read(5000)?.length).toBe(2000);
    expect(short.read(5000)).toBeNull();
    expect(readFileSync(path).length).toBe(44 + 4003);
  });
});
