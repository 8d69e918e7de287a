// The callers' voices: eSpeak NG (Debian's espeak-ng) renders each phrase once into a cache under the
// temp dir; the bench plays it as 8 kHz PCM with the silence eSpeak puts around it cut off, so the
// pauses the corpus writes are the pauses the agent hears.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FRAME_MS, rmsDbfs, samplesPerFrame } from "../../../src/voice/media/frames.ts";
import { resampleBuffer } from "../../../src/voice/media/resampler.ts";
import { readWav } from "../../../test/helpers/fake-speech/audio.ts";

export const LINE_RATE = 8000;
export const FRAME_SAMPLES = samplesPerFrame(LINE_RATE);
/** A 20 ms frame louder than this is voice, on both sides of the call (the caller's and the agent's). */
export const VOICED_DBFS = -45;

const ESPEAK = "/usr/bin/espeak-ng";
const CACHE = join(tmpdir(), "parley-bench-conversation-voices");

/** The caller voices, one per call slot in turn: eSpeak NG voice and words per minute. */
export const CALLER_VOICES = [
  { voice: "en-us", wpm: 165 },
  { voice: "en-gb", wpm: 175 },
  { voice: "en-us+f3", wpm: 160 },
  { voice: "en-gb-x-rp+m4", wpm: 170 },
];
export type CallerVoice = (typeof CALLER_VOICES)[number];

export function isVoiced(frame: Int16Array): boolean {
  return rmsDbfs(frame) > VOICED_DBFS;
}

/** `text` as the caller says it: 8 kHz PCM, a whole number of frames, from its first voiced frame to its last. */
export function render(text: string, voice: CallerVoice): Int16Array {
  if (!existsSync(ESPEAK)) throw new Error("the conversation benchmark needs espeak-ng (apt-get install espeak-ng)");
  mkdirSync(CACHE, { recursive: true });
  const key = createHash("sha256").update(`${voice.voice}|${voice.wpm}|${text}`).digest("hex").slice(0, 24);
  const cached = join(CACHE, `${key}.pcm`);
  if (existsSync(cached)) {
    const bytes = new Uint8Array(readFileSync(cached)); // a copy: the file's buffer need not be 2-byte aligned
    return new Int16Array(bytes.buffer, 0, bytes.byteLength >> 1);
  }
  const wavPath = join(CACHE, `${key}.wav`);
  const run = Bun.spawnSync([ESPEAK, "-v", voice.voice, "-s", String(voice.wpm), "-w", wavPath, text]);
  if (run.exitCode !== 0) throw new Error(`espeak-ng failed on "${text}": ${run.stderr.toString()}`);
  const wav = readWav(readFileSync(wavPath));
  if (!wav) throw new Error(`espeak-ng wrote no WAV for "${text}"`);
  const pcm = trimmed(resampleBuffer(wav.samples, wav.sampleRate, LINE_RATE));
  writeFileSync(cached, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  return pcm;
}

/** From the first voiced frame to the last, padded to whole frames. */
function trimmed(pcm: Int16Array): Int16Array {
  const frames = Math.floor(pcm.length / FRAME_SAMPLES);
  let first = -1;
  let last = -1;
  for (let i = 0; i < frames; i++) {
    if (!isVoiced(pcm.subarray(i * FRAME_SAMPLES, (i + 1) * FRAME_SAMPLES))) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (first < 0) throw new Error("espeak-ng rendered silence");
  return pcm.slice(first * FRAME_SAMPLES, (last + 1) * FRAME_SAMPLES);
}

export const msOf = (pcm: Int16Array) => (pcm.length / FRAME_SAMPLES) * FRAME_MS;
