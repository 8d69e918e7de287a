// What the far end of a carrier's media stream does in the local carrier servers: plays the agent's
// audio at 20 ms a frame, hands marks back once the audio before them has played (at once on
// `clear`), and measures how loud what it heard was.
import { decodeG711 } from "../../src/voice/media/g711.ts";

export class FarEndPlayout {
  readonly played: Uint8Array[] = [];
  readonly marksEchoed: string[] = [];
  clears = 0;
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

export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}
