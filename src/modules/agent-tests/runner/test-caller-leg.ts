import { SimulatedLegBase } from "../../../telephony/simulated/carrier.ts";
import type { MediaFormat } from "../../../telephony/types.ts";
import { PcmFramer } from "../../../voice/media/framer.ts";
import { decodeMulaw, encodeMulaw } from "../../../voice/media/g711.ts";
import { rmsDbfs } from "../../../voice/media/frames.ts";
import type { MediaClock } from "../../../voice/media/media-clock.ts";

export const LINE_RATE = 8000;
const FRAME = LINE_RATE / 50;
const SILENCE = encodeMulaw(new Int16Array(FRAME));
/** Keys go one at a time, this far apart, as a phone's RFC 4733 events would. */
const DIGIT_GAP_MS = 200;
/** Louder than this is the agent's voice; below is line noise and the silence between words. */
const VOICE_DBFS = -50;

/** What a test caller does on each 20 ms tick of the call (the script or the model deciding). */
export type CallerTick = (line: TestCallerLeg) => void;

/**
 * The in-process far end of a test call: paced by the media clock like the simulated carrier's legs,
 * it hears the agent's audio (when its voice starts and stops), plays the caller's audio, presses keys
 * out of band, hangs up, and records how the line ended (a transfer's target included).
 */
export class TestCallerLeg extends SimulatedLegBase {
  override readonly format: MediaFormat = { encoding: "pcmu", sampleRate: LINE_RATE };
  /** The caller's audio timeline: ms since the answer (what the simulated recogniser's announcements use). */
  elapsedMs = 0;
  agentTalking = false;
  /** When the agent's voice was last heard (-1: never). */
  lastAgentAudioMs = -1;
  /** When the current (or last) stretch of the agent's voice began. */
  agentSpeechStartMs = -1;
  transferredTo: string | null = null;
  /** Who ended the line: the caller (its script, its timeout, a cancel) or the agent (hang-up, transfer). */
  endedBy: "caller" | "agent" | null = null;
  /** Resolves when the line is over, whoever ended it. */
  readonly over: Promise<void>;
  /** Why the caller's own logic broke (it threw on a tick), else null: the case is an error, not a verdict. */
  failure: string | null = null;
  private readonly heard = new Int16Array(FRAME);
  private outgoing: Uint8Array[] = [];
  private digits: { digit: string; atMs: number }[] = [];
  private unsubscribe: (() => void) | null = null;
  private resolveOver!: () => void;

  constructor(private readonly clock: MediaClock, private readonly tick: CallerTick) {
    super();
    this.over = new Promise((resolve) => (this.resolveOver = resolve));
    // After connectLeg attached the session's handlers (it runs right after makeLeg returns).
    queueMicrotask(() => {
      if (this.ended) return;
      this.emit({ type: "ringing" });
      this.emit({ type: "answered" });
      this.unsubscribe = this.clock.subscribe(
        () => this.onTick(),
        (error) => {
          this.failure ??= `the test caller failed: ${(error as Error).message}`;
          this.hangUpAsCaller();
        },
      );
    });
  }

  /** Whether the caller still has audio or keys queued. */
  get busy(): boolean {
    return this.outgoing.length > 0 || this.digits.length > 0;
  }

  /** Where audio queued now would start on the caller's timeline. */
  get queueEndMs(): number {
    return this.elapsedMs + 20 * this.outgoing.length;
  }

  /**
   * Whether the agent answered what the caller did up to `sinceMs`: it spoke after it and has been
   * quiet for `gapMs` (a finished sentence, not the breath between two), or it has said nothing at all
   * for `giveUpMs` (the caller goes on, as a person would).
   */
  agentReplied(sinceMs: number, gapMs: number, giveUpMs: number): boolean {
    const spoke = this.lastAgentAudioMs > sinceMs;
    if (spoke) return !this.agentTalking && this.elapsedMs - this.lastAgentAudioMs >= gapMs;
    return !this.agentTalking && this.elapsedMs - sinceMs >= giveUpMs;
  }

  /** How long neither the agent nor (since `sinceMs`) the caller has made a sound. */
  quietFor(sinceMs: number): number {
    return this.agentTalking ? 0 : this.elapsedMs - Math.max(sinceMs, this.lastAgentAudioMs);
  }

  /** Queues PCM at the line rate after what is queued; returns where it sits on the timeline. */
  play(pcm: Int16Array): { startMs: number; endMs: number } {
    const startMs = this.queueEndMs;
    const framer = new PcmFramer(FRAME);
    framer.push(pcm);
    for (let frame = framer.flush(); frame; frame = framer.flush()) this.outgoing.push(encodeMulaw(frame));
    return { startMs, endMs: this.queueEndMs };
  }

  /** Presses keys after what is queued; returns when the last one goes. */
  press(keys: string): number {
    let at = Math.max(this.queueEndMs, this.digits.at(-1)?.atMs ?? 0);
    for (const digit of keys) this.digits.push({ digit, atMs: (at += DIGIT_GAP_MS) });
    return at;
  }

  /** The caller hangs up: the call ends as the customer's hang-up. */
  hangUpAsCaller(): void {
    if (this.ended) return;
    this.endedBy ??= "caller";
    this.stop();
    this.emit({ type: "ended", reason: "remote_hangup" });
  }

  sendAudio(frame: Uint8Array): void {
    if (this.ended || rmsDbfs(decodeMulaw(frame, this.heard)) <= VOICE_DBFS) return;
    if (!this.agentTalking) this.agentSpeechStartMs = this.elapsedMs;
    this.agentTalking = true;
    this.lastAgentAudioMs = this.elapsedMs;
  }
  sendDtmf(): void {}
  async transfer(to: string): Promise<void> {
    this.transferredTo = to;
    this.endedBy ??= "agent";
    this.stop();
  }
  hangup(): void {
    this.endedBy ??= "agent";
    this.stop();
    this.ended = true;
    this.releaseAll();
  }

  private onTick(): void {
    if (this.ended) return;
    this.elapsedMs += 20;
    // A voice's own gaps between words are not the end of its turn.
    if (this.agentTalking && this.elapsedMs - this.lastAgentAudioMs > 100) this.agentTalking = false;
    this.tick(this);
    if (this.ended) return;
    while (this.digits.length && this.digits[0].atMs <= this.elapsedMs) this.deliverDigit(this.digits.shift()!.digit);
    this.deliver(this.outgoing.shift() ?? SILENCE);
  }

  private stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.outgoing = [];
    this.digits = [];
    this.resolveOver();
  }
}
