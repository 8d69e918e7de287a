// A softphone for tests: dials one of the workspace's simulated numbers over the WebSocket at
// /v1/telephony/simulated/softphone, sends the caller's audio as paced 20 ms frames (silence between
// lines, as a real phone does), and keeps everything the server sends.
import { decodeMulaw, encodeMulaw } from "../../src/voice/media/g711.ts";
import { afterEach } from "bun:test";
import { concatPcm, rmsDbfs } from "../../src/voice/media/frames.ts";
import { builtinTts } from "../../src/voice/speech/builtin/index.ts";

/** Flite's voice saying `text` at `rate`: what the caller says into the phone. */
export async function speech(text: string, rate: number): Promise<Int16Array> {
  const chunks: Int16Array[] = [];
  for await (const chunk of builtinTts().synthesize(text, { voice: "slt", speed: 1, sampleRate: rate })) chunks.push(chunk);
  return concatPcm(chunks);
}

/** Softphones made through this are hung up after each test whatever happens (the server waits for open sockets). */
export function phonesClosedAfterEach(): (make: () => Softphone) => Softphone {
  const phones: Softphone[] = [];
  afterEach(() => {
    for (const phone of phones.splice(0)) phone.close();
  });
  return (make) => {
    const phone = make();
    phones.push(phone);
    return phone;
  };
}

export interface SoftphoneOptions {
  /** The number to dial; or, with `url`, the browser voice session to join instead. */
  to?: string;
  /** A browser voice session URL (its token included): linear PCM at `rate`, no API key. */
  url?: string;
  /** The page's origin, as a browser would send it. */
  origin?: string;
  from?: string;
  encoding?: "pcmu" | "l16";
  rate?: 8000 | 16000 | 48000;
  recognition?: "agent" | "simulated";
}

export class Softphone {
  readonly events: any[] = [];
  /** The agent's audio, one entry per binary frame, as linear PCM. */
  readonly received: Int16Array[] = [];
  readonly frameBytes: number[] = [];
  readonly opened: Promise<void>;
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly rate: number;
  /** Frames sent since the call was answered: the caller's audio timeline (20 ms each). */
  sentFrames = 0;
  /** When the last frame of the agent's speech arrived (performance.now()). */
  lastLoudAt: number | null = null;
  /** Where on the caller's audio timeline (ms sent since the answer) each frame of the agent's speech arrived. */
  readonly loudAtMs: number[] = [];
  private readonly socket: WebSocket;
  private readonly encoding: "pcmu" | "l16";
  private queue: Int16Array[] = [];
  private pacing = false;
  private waiters: (() => void)[] = [];

  constructor(baseUrl: string, token: string | null, options: SoftphoneOptions) {
    this.encoding = options.url ? "l16" : (options.encoding ?? "pcmu");
    this.rate = this.encoding === "l16" ? (options.rate ?? 16000) : 8000;
    const query = new URLSearchParams({ to: options.to ?? "", encoding: this.encoding });
    if (options.from) query.set("from", options.from);
    if (options.recognition) query.set("recognition", options.recognition);
    if (this.encoding === "l16") query.set("rate", String(this.rate));
    const url = options.url ? `${options.url}&rate=${this.rate}` : `${baseUrl.replace(/^http/, "ws")}/v1/telephony/simulated/softphone?${query}`;
    // Bun's WebSocket client takes headers, so the API key goes where every other request puts it.
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (options.origin) headers.origin = options.origin;
    this.socket = new WebSocket(url, { headers } as unknown as string[]);
    this.socket.binaryType = "arraybuffer";
    this.opened = new Promise((resolve, reject) => {
      this.socket.addEventListener("open", () => resolve());
      this.socket.addEventListener("error", () => reject(new Error("the softphone could not connect")));
    });
    this.closed = new Promise((resolve) => this.socket.addEventListener("close", (event) => resolve({ code: event.code, reason: event.reason })));
    this.socket.addEventListener("message", (message) => {
      if (typeof message.data === "string") {
        const event = JSON.parse(message.data);
        this.events.push(event);
        // A phone line answers; a browser session is live from its first message.
        if (event.type === "answered" || event.type === "session") this.startPacing();
      } else {
        const bytes = new Uint8Array(message.data as ArrayBuffer);
        this.frameBytes.push(bytes.length);
        const pcm = this.encoding === "pcmu" ? decodeMulaw(bytes) : new Int16Array(bytes.buffer.slice(0));
        this.received.push(pcm);
        if (rmsDbfs(pcm) > -40) {
          this.lastLoudAt = performance.now();
          this.loudAtMs.push(this.sentFrames * 20);
        }
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    void this.closed.then(() => {
      this.pacing = false;
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  /** Frames queued and not yet sent. */
  get queued(): number {
    return this.queue.length;
  }

  get samplesPerFrame(): number {
    return this.rate / 50;
  }

  /** Resolves when `check` holds (re-checked on every message), or fails after `timeoutMs`. */
  async until<T>(check: () => T | undefined | false, timeoutMs = 15_000, what = "a condition"): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value) return value;
      if (Date.now() > deadline) throw new Error(`softphone: timed out waiting for ${what}`);
      await Promise.race([new Promise<void>((resolve) => this.waiters.push(resolve)), Bun.sleep(50)]);
    }
  }

  event(type: string, timeoutMs?: number): Promise<any> {
    return this.until(() => this.events.find((e) => e.type === type), timeoutMs, `a "${type}" message`);
  }

  /** Frames of the agent's audio louder than -40 dBFS. */
  loudFrames(from = 0): number {
    return this.received.slice(from).filter((frame) => rmsDbfs(frame) > -40).length;
  }

  /** Waits until the agent has spoken and then been quiet for `quietMs` (it sends no frames between turns). */
  async agentFinished(quietMs = 800, timeoutMs = 15_000): Promise<void> {
    await this.until(() => this.lastLoudAt !== null && performance.now() - this.lastLoudAt >= quietMs, timeoutMs, "the agent to finish speaking");
  }

  /**
   * Speaks `pcm` (at the softphone's rate) after what is queued; with `text`, also announces it
   * for simulated recognition at the place on the timeline where it will be heard.
   */
  speak(pcm: Int16Array, text?: string): { startMs: number; endMs: number } {
    const startMs = (this.sentFrames + this.queue.length) * 20;
    for (let at = 0; at < pcm.length; at += this.samplesPerFrame) {
      const frame = new Int16Array(this.samplesPerFrame);
      frame.set(pcm.subarray(at, at + this.samplesPerFrame));
      this.queue.push(frame);
    }
    const endMs = startMs + Math.round((pcm.length / this.rate) * 1000);
    if (text) this.send({ type: "announce", text, start_ms: startMs, end_ms: endMs });
    return { startMs, endMs };
  }

  /** Resolves once everything queued has been sent. */
  drained(): Promise<void> {
    return this.until(() => this.queue.length === 0 || !this.pacing, 30_000, "the caller's audio to be sent").then(() => {});
  }

  send(command: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(command));
  }

  hangup(): void {
    this.send({ type: "hangup" });
  }

  close(): void {
    this.pacing = false;
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close();
  }

  /** One frame every 20 ms of wall time, silence when nothing is queued. */
  private startPacing(): void {
    if (this.pacing) return;
    this.pacing = true;
    const started = performance.now();
    const silence = new Int16Array(this.samplesPerFrame);
    const tick = async () => {
      while (this.pacing && this.socket.readyState === WebSocket.OPEN) {
        const frame = this.queue.shift() ?? silence;
        this.socket.send(this.encoding === "pcmu" ? encodeMulaw(frame) : new Uint8Array(frame.buffer.slice(0)));
        this.sentFrames++;
        for (const wake of this.waiters.splice(0)) wake();
        const wait = started + this.sentFrames * 20 - performance.now();
        if (wait > 0) await Bun.sleep(wait);
      }
    };
    void tick();
  }
}
