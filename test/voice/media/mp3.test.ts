import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeMp3 } from "../../helpers/mp3.ts";
import { wavFileToMp3, wavFileToMp3Chunks } from "../../../src/voice/media/mp3.ts";
import { encodeWav } from "../../../src/voice/media/wav-format.ts";
import { dominantFrequency, sine } from "./signals.ts";

const dir = mkdtempSync(join(tmpdir(), "parley-mp3-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface FrameHeader {
  version: "1" | "2" | "2.5";
  sampleRate: number;
  bitrateKbps: number;
  mono: boolean;
  length: number;
}

const BITRATES_V2_L3 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];
const BITRATES_V1_L3 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const RATES: Record<FrameHeader["version"], number[]> = { "1": [44100, 48000, 32000], "2": [22050, 24000, 16000], "2.5": [11025, 12000, 8000] };

/** Walks an MP3 stream frame by frame (ISO 11172-3 / 13818-3 headers); throws at anything else. */
function mp3Frames(bytes: Uint8Array): FrameHeader[] {
  const frames: FrameHeader[] = [];
  for (let offset = 0; offset < bytes.length; ) {
    const header = ((bytes[offset] << 24) | (bytes[offset + 1] << 16) | (bytes[offset + 2] << 8) | bytes[offset + 3]) >>> 0;
    if (header >>> 21 !== 0x7ff) throw new Error(`no frame sync at byte ${offset}`);
    const versionBits = (header >>> 19) & 3;
    if (versionBits === 1) throw new Error(`reserved MPEG version at byte ${offset}`);
    if (((header >>> 17) & 3) !== 1) throw new Error(`not layer III at byte ${offset}`);
    const version = versionBits === 3 ? "1" : versionBits === 2 ? "2" : "2.5";
    const bitrateKbps = (version === "1" ? BITRATES_V1_L3 : BITRATES_V2_L3)[(header >>> 12) & 15];
    const sampleRate = RATES[version][(header >>> 10) & 3];
    if (!bitrateKbps || !sampleRate) throw new Error(`bad bitrate or sample rate index at byte ${offset}`);
    const padding = (header >>> 9) & 1;
    const length = Math.floor(((version === "1" ? 144 : 72) * bitrateKbps * 1000) / sampleRate) + padding;
    frames.push({ version, sampleRate, bitrateKbps, mono: ((header >>> 6) & 3) === 3, length });
    offset += length;
    if (offset > bytes.length) throw new Error("last frame cut short");
  }
  return frames;
}


function toPcm(channel: Float32Array): Int16Array {
  return Int16Array.from(channel, (v) => Math.round(v * 32767));
}

function stereoWav(path: string, sampleRate: number, seconds: number): void {
  const left = sine(440, seconds * 1000, sampleRate, 8000);
  const right = sine(1000, seconds * 1000, sampleRate, 8000);
  const interleaved = new Int16Array(left.length * 2);
  for (let i = 0; i < left.length; i++) {
    interleaved[2 * i] = left[i];
    interleaved[2 * i + 1] = right[i];
  }
  writeFileSync(path, encodeWav(interleaved, { sampleRate, channels: 2 }));
}

describe("MP3 from a call recording", () => {
  for (const sampleRate of [8000, 16000]) {
    test(`stereo ${sampleRate} Hz WAV → well-formed MP3 that decodes to the same two sides`, async () => {
      const wav = join(dir, `call-${sampleRate}.wav`);
      const mp3 = join(dir, `call-${sampleRate}.mp3`);
      stereoWav(wav, sampleRate, 3);
      const started = performance.now();
      const summary = await wavFileToMp3(wav, mp3);
      const speed = 3000 / (performance.now() - started);
      console.log(`mp3: ${sampleRate} Hz stereo at ${(speed).toFixed(0)}× real time, ${summary.bytes} bytes for 3 s`);
      const bytes = new Uint8Array(readFileSync(mp3));
      expect(summary).toEqual({ bytes: bytes.length, durationMs: 3000 });
      const frames = mp3Frames(bytes);
      expect(frames.every((f) => f.sampleRate === sampleRate && !f.mono)).toBe(true);
      expect(frames[0].version).toBe(sampleRate === 8000 ? "2.5" : "2");
      expect(frames[0].bitrateKbps).toBe(sampleRate === 8000 ? 32 : 48);
      // 576 samples per MPEG-2/2.5 layer III frame; the encoder adds its delay and padding.
      expect(frames.length * 576).toBeGreaterThanOrEqual(3 * sampleRate);
      expect(frames.length * 576).toBeLessThan(3 * sampleRate + 4 * 576);

      const decoded = await decodeMp3(bytes);
      expect(decoded.errors).toEqual([]);
      expect(decoded.sampleRate).toBe(sampleRate);
      const middle = (channel: Float32Array) => toPcm(channel.subarray(sampleRate, 2 * sampleRate));
      expect(dominantFrequency(middle(decoded.channelData[0]), sampleRate, 200, 1500)).toBe(440);
      expect(dominantFrequency(middle(decoded.channelData[1]), sampleRate, 200, 1500)).toBe(1000);
    });
  }

  test("mono mix and a chosen bitrate, streamed in chunks", async () => {
    const wav = join(dir, "mono.wav");
    stereoWav(wav, 16000, 2);
    const chunks: Uint8Array[] = [];
    for await (const chunk of wavFileToMp3Chunks(wav, { mono: true, bitrateKbps: 32 })) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    const bytes = new Uint8Array(chunks.reduce((sum, c) => sum + c.length, 0));
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    const frames = mp3Frames(bytes);
    expect(frames.every((f) => f.mono && f.bitrateKbps === 32 && f.sampleRate === 16000)).toBe(true);
    const decoded = await decodeMp3(bytes);
    const mixed = toPcm(decoded.channelData[0].subarray(8000, 24000));
    // Both sides are in the mix.
    expect(dominantFrequency(mixed, 16000, 200, 600)).toBe(440);
    expect(dominantFrequency(mixed, 16000, 700, 1500)).toBe(1000);
  });

  test("a mono WAV stays mono, at MPEG-2.5 for 8 kHz", async () => {
    const wav = join(dir, "mono-8k.wav");
    const mp3 = join(dir, "mono-8k.mp3");
    writeFileSync(wav, encodeWav(sine(700, 1500, 8000, 9000).subarray(0, 8000 + 333), { sampleRate: 8000, channels: 1 }));
    await wavFileToMp3(wav, mp3);
    const bytes = new Uint8Array(readFileSync(mp3));
    const frames = mp3Frames(bytes);
    expect(frames.every((f) => f.mono && f.bitrateKbps === 16 && f.version === "2.5")).toBe(true);
    const decoded = await decodeMp3(bytes);
    expect(dominantFrequency(toPcm(decoded.channelData[0].subarray(2000, 6000)), 8000, 300, 1500)).toBe(700);
  });

  test("a WAV that is not 16-bit PCM, or is missing, is an error", async () => {
    const wav = join(dir, "alaw.wav");
    const bytes = encodeWav(new Int16Array(100), { sampleRate: 8000, channels: 1 });
    new DataView(bytes.buffer).setUint16(20, 6, true);
    writeFileSync(wav, bytes);
    await expect(wavFileToMp3(wav, join(dir, "alaw.mp3"))).rejects.toThrow("only 16-bit PCM");
    await expect(wavFileToMp3(join(dir, "missing.wav"), join(dir, "missing.mp3"))).rejects.toThrow("ENOENT");
  });

  test("stopping a stream early ends its worker", async () => {
    const wav = join(dir, "early.wav");
    stereoWav(wav, 16000, 5);
    let chunks = 0;
    for await (const _ of wavFileToMp3Chunks(wav)) if (++chunks === 2) break;
    expect(chunks).toBe(2);
  });
});
