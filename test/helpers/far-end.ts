// What the far end of a carrier's media stream does in the local carrier servers: plays the agent's
// audio at 20 ms a frame, hands marks back once the audio before them has played (at once on
// `clear`), measures how loud what it heard was and which keys it heard as tones; and the speech it says.
import { DtmfDetector } from "../../src/voice/media/dtmf.ts";
import { concatPcm } from "../../src/voice/media/frames.ts";
import { decodeG711, encodeMulaw } from "../../src/voice/media/g711.ts";
import { builtinTts } from "../../src/voice/speech/builtin/index.ts";

export class FarEndPlayout {
  readonly played: Uint8Array[] = [];
  readonly marksEchoed: string[] = [];
  clears = 0;
  /** Called the moment a frame of agent audio arrives, before it is queued (the latency benchmark's probe). */
  onArrival: ((payload: Uint8Array) => void) | null = null;
  private queue: ({ audio: Uint8Array } | { mark: string })[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;

  /** `echo` sends a mark back to Parley in the carrier's own JSON. */
  constructor(private readonly echo: (name: string) => void) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), 20);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  audio(payload: Uint8Array): void {
    this.onArrival?.(payload);
    this.queue.push({ audio: payload });
  }

  mark(name: string): void {
    this.queue.push({ mark: name });
  }

  /** Buffered audio is dropped; its marks come back at once. */
  clear(): void {
    this.clears++;
    for (const item of this.queue.splice(0)) if ("mark" in item) this.echoMark(item.mark);
  }

  playedBytes(): Uint8Array {
    return Buffer.concat(this.played);
  }

  private tick(): void {
    this.echoLeadingMarks();
    const next = this.queue.shift();
    if (next && "audio" in next) this.played.push(next.audio);
    this.echoLeadingMarks();
  }

  private echoLeadingMarks(): void {
    while (this.queue.length && "mark" in this.queue[0]) this.echoMark((this.queue.shift() as { mark: string }).mark);
  }

  private echoMark(name: string): void {
    this.marksEchoed.push(name);
    this.echo(name);
  }
}

/** The loudest 200 ms of µ-law audio: speech is well above 1,000, silence near 0. */
export function loudest(audio: Uint8Array): number {
  const pcm = decodeG711("mulaw", audio);
  let best = 0;
  for (let offset = 0; offset + 1600 <= pcm.length; offset += 1600) {
    let sum = 0;
    for (let i = offset; i < offset + 1600; i++) sum += pcm[i] * pcm[i];
    best = Math.max(best, Math.sqrt(sum / 1600));
  }
  return best;
}

/** Keys heard as in-band DTMF tones in µ-law audio. */
export function tonesIn(audio: Uint8Array): string {
  const detector = new DtmfDetector({ sampleRate: 8000 });
  return detector.push(decodeG711("mulaw", audio)).map((event) => event.digit).join("");
}

/** `text` spoken by the built-in voice as µ-law 8 kHz, with two seconds of silence after it (a person waiting). */
export async function spokenMulaw(text: string): Promise<Uint8Array> {
  const chunks: Int16Array[] = [];
  for await (const chunk of builtinTts().synthesize(text, { voice: "slt", speed: 1, sampleRate: 8000 })) chunks.push(chunk);
  return encodeMulaw(concatPcm([concatPcm(chunks), new Int16Array(8000 * 2)]));
}

export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}
