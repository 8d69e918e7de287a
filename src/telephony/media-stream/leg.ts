// A call whose audio rides a carrier's WebSocket (Twilio Media Streams, Telnyx media streaming): one
// leg for both, the differences in a StreamCodec (the JSON) and a StreamControl (the REST commands).
// Framing, `clear` on barge-in, marks and keys are handled here once.
import { generateDtmf } from "../../voice/media/dtmf.ts";
import { decodeG711, encodeG711, encodeMulaw } from "../../voice/media/g711.ts";
import { LegListeners } from "../leg-listeners.ts";
import { FramePacing, LATE_FRAME_MS } from "../frame-pacing.ts";
import type { CallLeg, LegEndReason, LegEvent, MediaCounts, MediaFormat } from "../types.ts";
import type { StreamCodec, StreamMessage, StreamSocket } from "./codec.ts";
import { FrameCutter } from "./frame-cutter.ts";

/** What the carrier's REST API does for the call; the leg calls it, the carrier implements it. */
export interface StreamControl {
  hangup(answered: boolean): Promise<void>;
  transfer(to: string): Promise<void>;
  /** Sends keys as a carrier command; false when the carrier has none, and the leg plays them as tones. */
  sendDtmf(digits: string): Promise<boolean>;
}

const FRAME_BYTES = 160;
/** How long a hang-up waits for the carrier to play what it was already sent. */
const DRAIN_MS = 2_000;
const DRAIN_MARK = "parley-drain";
/** A pause in the carrier's media longer than this is a stall (its link or TCP held the audio back): as late as a frame may come. */
const STALL_MS = LATE_FRAME_MS;

export class StreamLeg extends LegListeners implements CallLeg {
  /** The conversation loop always hears and speaks µ-law 8 kHz; a PCMA stream is transcoded. */
  readonly format: MediaFormat = { encoding: "pcmu", sampleRate: 8000 };
  private socket: StreamSocket | null = null;
  private streamId = "";
  private wire: "pcmu" | "pcma" = "pcmu";
  private readonly cutter = new FrameCutter(FRAME_BYTES);
  private readonly pacing = new FramePacing();
  private lastMediaAt = 0;
  private stalls = 0;
  /** The mark sent after the last frame on hang-up, and what to do when it comes back. */
  private drainMark: string | null = null;
  private drained: (() => void) | null = null;
  private rang = false;
  private carrierCallId = "";
  /** A transfer was asked for: the stream stopping now is the transfer, not a hang-up. */
  private transferring = false;
  private answered = false;
  private ended = false;
  private sent = 0;
  private malformed = 0;

  constructor(
    private readonly codec: StreamCodec,
    private readonly control: StreamControl,
    private readonly log: (message: string) => void,
  ) {
    super();
  }

  // ------------------------------------------------------------------ what the carrier tells the leg

  ringing(): void {
    if (this.rang || this.answered || this.ended) return;
    this.rang = true;
    this.emit({ type: "ringing" });
  }

  /** The carrier's own id for the call, kept in the call's events. */
  identified(carrierCallId: string): void {
    if (this.ended || this.carrierCallId === carrierCallId) return;
    this.carrierCallId = carrierCallId;
    this.emit({ type: "carrier_call", id: carrierCallId });
  }

  answeredBy(verdict: "human" | "machine"): void {
    if (!this.ended) this.emit({ type: "answered_by", verdict });
  }

  /** The carrier opened the stream (its `start` frame named this call): audio flows, the call is answered. */
  attach(socket: StreamSocket, start: Extract<StreamMessage, { type: "start" }>): void {
    if (this.ended) {
      socket.close(1000, "the call has ended");
      return;
    }
    this.socket = socket;
    this.streamId = start.streamId;
    this.wire = start.encoding === "pcma" ? "pcma" : "pcmu";
    this.identified(start.carrierCallId);
    this.answered = true;
    this.emit({ type: "answered" });
  }

  /** A frame from the carrier after `start`. */
  receive(message: StreamMessage): void {
    // The drain mark comes back after the leg has ended: the goodbye has been played.
    if (message.type === "mark" && message.name === this.drainMark) this.drained?.();
    if (this.ended) return;
    switch (message.type) {
      case "media":
        this.media(message.payload);
        return;
      case "dtmf":
        this.deliverDigit(message.digit);
        return;
      case "stop":
        this.end(this.transferring ? "transferred" : "remote_hangup");
        return;
      default:
        return;
    }
  }

  noteMalformed(): void {
    this.malformed++;
  }

  /** The socket closed: with `<Connect><Stream>` the call is over when its stream is. */
  socketClosed(): void {
    this.socket = null;
    if (this.ended) return;
    if (this.transferring) this.end("transferred");
    else this.end(this.answered ? "remote_hangup" : "failed", this.answered ? undefined : "the carrier closed the media stream before it started");
  }

  /** The carrier says the call is over (status callback, hang-up event) or could not be made. */
  end(reason: LegEndReason, detail?: string): void {
    if (this.ended) return;
    this.ended = true;
    this.emit({ type: "ended", reason, detail });
    this.reportTrouble();
    const socket = this.socket;
    this.socket = null;
    try {
      socket?.close(1000, reason);
    } catch {
      // already gone
    }
  }

  get isEnded(): boolean {
    return this.ended;
  }

  get isAnswered(): boolean {
    return this.answered;
  }

  // ------------------------------------------------------------------ CallLeg

  sendAudio(frame: Uint8Array): void {
    if (this.ended || !this.socket) return;
    const payload = this.wire === "pcmu" ? frame : encodeG711("alaw", decodeG711("mulaw", frame));
    this.send(this.codec.media(this.streamId, payload));
    this.sent++;
  }

  /** The carrier buffers what it was sent; barge-in drops that buffer (pending marks come back at once). */
  clearAudio(): void {
    if (!this.ended && this.socket) this.send(this.codec.clear(this.streamId));
  }

  sendDtmf(digits: string): void {
    if (this.ended) return;
    void this.control.sendDtmf(digits).then(
      (sent) => sent || this.playTones(digits),
      (error) => this.log(`keys ${digits} not sent: ${(error as Error).message}`),
    );
  }

  async transfer(to: string): Promise<void> {
    if (this.ended || !this.answered) throw new Error("the call is not connected");
    this.transferring = true;
    try {
      await this.control.transfer(to);
    } catch (error) {
      this.transferring = false;
      throw error;
    }
    this.end("transferred");
  }

  /** What was already sent is played before the carrier is told to hang up (the agent's goodbye). */
  hangup(): void {
    if (this.ended) return;
    const answered = this.answered;
    const drained = this.drain();
    this.end("local_hangup");
    void drained
      .then(() => this.control.hangup(answered))
      .catch((error) => this.log(`hang-up at the carrier failed: ${(error as Error).message}`));
  }

  mediaCounts(): MediaCounts {
    return this.pacing.counts();
  }

  // ------------------------------------------------------------------ inside

  /** The caller's audio, handed on frame by frame as it arrives. */
  private media(payload: Uint8Array): void {
    const now = performance.now();
    if (this.lastMediaAt && now - this.lastMediaAt > STALL_MS) this.stalls++;
    this.lastMediaAt = now;
    for (const frame of this.cutter.cut(payload)) {
      this.pacing.frame(now);
      this.deliverAudio(this.wire === "pcmu" ? frame : encodeMulaw(decodeG711("alaw", frame)));
    }
  }

  /** A mark after the last frame sent: it comes back once the carrier has played up to it. */
  private drain(): Promise<void> {
    if (!this.socket || this.sent === 0) return Promise.resolve();
    const name = `${DRAIN_MARK}-${this.sent}`;
    this.drainMark = name;
    const played = new Promise<void>((resolve) => {
      this.drained = resolve;
      setTimeout(resolve, DRAIN_MS).unref?.();
    });
    this.send(this.codec.mark(this.streamId, name));
    // The socket is kept open for the mark even though the leg has ended.
    const socket = this.socket;
    this.socket = null;
    return played.finally(() => {
      try {
        socket.close(1000, "hangup");
      } catch {
        // already gone
      }
    });
  }

  /** Keys as in-band tones (a carrier with no key command): µ-law frames queued behind what was sent. */
  private playTones(digits: string): void {
    if (this.ended || !this.socket) return;
    const tones = encodeMulaw(generateDtmf(digits, { sampleRate: 8000 }));
    for (let offset = 0; offset < tones.length; offset += FRAME_BYTES) {
      const frame = new Uint8Array(FRAME_BYTES).fill(0xff);
      frame.set(tones.subarray(offset, offset + FRAME_BYTES));
      this.sendAudio(frame);
    }
  }

  /** A stream that stalled or sent junk says so once, when the call ends (the operator's clue to a bad link). */
  private reportTrouble(): void {
    if (this.stalls || this.malformed) this.log(`media stream ${this.streamId}: ${this.stalls} stalls over ${STALL_MS} ms, ${this.malformed} frames that were not the carrier's JSON`);
  }

  private send(text: string): void {
    try {
      this.socket?.send(text);
    } catch {
      // the socket is closing; its close handler ends the call
    }
  }

  private emit(event: LegEvent): void {
    this.deliverEvent(event);
    if (event.type === "ended") this.releaseAll();
  }
}
