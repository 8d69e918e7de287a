// A talk-off corpus: varied English speech from Flite (built in) and espeak-ng (Debian), to prove the
// DTMF detector never hears key presses in speech. Synthesised once per machine into a cache dir.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtinTts } from "../../../src/voice/speech/builtin/index.ts";
import { StreamingResampler } from "../../../src/voice/media/resampler.ts";

const OPENERS = ["Hi,", "Hello,", "Good morning,", "Hey there,", "Excuse me,", "Sorry,", "Yes,", "Well,", "Okay,", "Right,"];
const ASKS = [
  "what are your opening hours", "can I book a table for four people", "I would like to cancel my order", "my card number is four two one eight",
  "is the shop open on Sunday", "could you call me back at seven thirty", "I need to reschedule my appointment to Friday afternoon",
  "the reference is nine nine three seven one", "how much does the premium plan cost per month", "where is your nearest branch in Manchester",
  "my name is Ada Lovelace and I live at twelve Baker Street", "I was charged twice for the same delivery", "can you repeat that please",
  "I'd like to speak to a human", "the parcel never arrived and the tracking says delivered", "do you have any vegetarian options",
  "what time does the pharmacy close tonight", "I'm calling about invoice number six zero eight", "please send the receipt to my email",
  "my date of birth is the third of March nineteen eighty five", "yes that's correct", "no that's not what I meant", "thanks, goodbye",
];
const CLOSERS = ["", "Thank you.", "Thanks a lot.", "Cheers!", "That would be great.", "I appreciate it.", "Is that possible?", "Bye for now."];

/** A few hundred distinct sentences from templates, in a fixed order. */
export function talkOffSentences(): string[] {
  const out: string[] = [];
  for (let i = 0; i < ASKS.length * OPENERS.length; i++) {
    const ask = ASKS[i % ASKS.length];
    const opener = OPENERS[(i * 7) % OPENERS.length];
    const closer = CLOSERS[(i * 3) % CLOSERS.length];
    out.push(`${opener} ${ask}? ${closer}`.trim());
  }
  return out;
}

export interface CorpusPart {
  label: string;
  sampleRate: number;
  pcm: Int16Array;
}

const ESPEAK_VOICES = ["en-us", "en-gb", "en-gb-scotland", "en-029", "en-us+f3", "en-gb+f2", "en-us+m3", "en-gb-x-rp+f4"];

function decodeWav(bytes: Uint8Array): { sampleRate: number; pcm: Int16Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sampleRate = view.getUint32(24, true);
  let offset = 12;
  while (offset + 8 <= bytes.length) {
    const id = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4, true);
    if (id === "data") {
      const end = Math.min(bytes.length, offset + 8 + (size === 0xffffffff || size === 0 ? bytes.length : size));
      const data = bytes.slice(offset + 8, end - ((end - offset - 8) % 2));
      return { sampleRate, pcm: new Int16Array(data.buffer) };
    }
    offset += 8 + size;
  }
  throw new Error("no data chunk");
}

async function espeak(text: string, voice: string, speed: number, pitch: number): Promise<{ sampleRate: number; pcm: Int16Array }> {
  const proc = Bun.spawn(["espeak-ng", "-v", voice, "-s", String(speed), "-p", String(pitch), "--stdout", text], { stdout: "pipe", stderr: "pipe" });
  const bytes = new Uint8Array(await new Response(proc.stdout).arrayBuffer());
  if ((await proc.exited) !== 0) throw new Error(`espeak-ng failed: ${await new Response(proc.stderr).text()}`);
  return decodeWav(bytes);
}

async function flite(text: string, voice: string): Promise<{ sampleRate: number; pcm: Int16Array }> {
  const tts = builtinTts();
  const parts: Int16Array[] = [];
  const rate = voice === "kal" ? 8000 : 16000;
  for await (const chunk of tts.synthesize(text, { voice, speed: 1, sampleRate: rate })) parts.push(chunk);
  const total = parts.reduce((n, p) => n + p.length, 0);
  const pcm = new Int16Array(total);
  let at = 0;
  for (const part of parts) (pcm.set(part, at), (at += part.length));
  return { sampleRate: rate, pcm };
}

export function resample(pcm: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return pcm;
  const resampler = new StreamingResampler({ fromRate: from, toRate: to });
  const out = new Int16Array(resampler.maxOutputSamples(pcm.length) + 64);
  const written = resampler.pushInto(pcm, out);
  resampler.free();
  return out.slice(0, written);
}

/**
 * At least `minSeconds` of speech, cached under the OS temp dir (keyed by the sentence list), each
 * part as synthesised (rate as the engine gives it). Fails loudly when espeak-ng is missing.
 */
export async function talkOffCorpus(minSeconds: number): Promise<CorpusPart[]> {
  if (Bun.spawnSync(["sh", "-c", "command -v espeak-ng"]).exitCode !== 0) {
    throw new Error("espeak-ng is not installed: the talk-off corpus needs it (apt-get install espeak-ng; .ci/run installs it)");
  }
  const sentences = talkOffSentences();
  const dir = join(tmpdir(), `parley-talkoff-${Bun.hash(JSON.stringify([sentences, ESPEAK_VOICES, minSeconds])).toString(36)}`);
  const index = join(dir, "index.json");
  if (existsSync(index)) {
    return (JSON.parse(readFileSync(index, "utf8")) as { label: string; sampleRate: number; file: string }[]).map((p) => ({
      label: p.label,
      sampleRate: p.sampleRate,
      pcm: new Int16Array(new Uint8Array(readFileSync(join(dir, p.file))).buffer),
    }));
  }
  mkdirSync(dir, { recursive: true });
  const parts: CorpusPart[] = [];
  let seconds = 0;
  // Long texts per call (a dozen sentences) keep process start-up out of the cost; rounds vary the
  // voices, speeds and pitches until there is enough audio.
  const chunk = 12;
  for (let round = 0, n = 0; seconds < minSeconds && round < 20; round++) {
    const jobs: (() => Promise<CorpusPart>)[] = [];
    for (let i = 0; i < sentences.length; i += chunk) {
      const text = sentences.slice(i, i + chunk).join(" ");
      const k = n++;
      if (k % 3 === 2) {
        const voice = ["kal16", "kal", "slt", "rms", "awb"][k % 5];
        jobs.push(async () => ({ label: `flite ${voice}`, ...(await flite(text, voice)) }));
      } else {
        const voice = ESPEAK_VOICES[k % ESPEAK_VOICES.length];
        const speed = 130 + ((k * 37) % 90);
        const pitch = 20 + ((k * 53) % 70);
        jobs.push(async () => ({ label: `espeak-ng ${voice} s${speed} p${pitch}`, ...(await espeak(text, voice, speed, pitch)) }));
      }
    }
    for (let i = 0; i < jobs.length && seconds < minSeconds; i += 4) {
      for (const part of await Promise.all(jobs.slice(i, i + 4).map((job) => job()))) {
        parts.push(part);
        seconds += part.pcm.length / part.sampleRate;
      }
    }
  }
  writeFileSync(index, JSON.stringify(parts.map((p, i) => ({ label: p.label, sampleRate: p.sampleRate, file: `${i}.pcm` }))));
  parts.forEach((p, i) => writeFileSync(join(dir, `${i}.pcm`), new Uint8Array(p.pcm.buffer, p.pcm.byteOffset, p.pcm.byteLength)));
  return parts;
}
