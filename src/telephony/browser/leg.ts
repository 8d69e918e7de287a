import { LegListeners } from "../leg-listeners.ts";
import { FrameCutter } from "../media-stream/frame-cutter.ts";
import { FramePacing } from "../frame-pacing.ts";
import type { CallLeg, LegEvent, MediaCounts, MediaFormat } from "../types.ts";
import { StreamingResampler } from "../../voice/media/resampler.ts";
import { CLOSE, MAX_AUDIO_MESSAGE_BYTES, type ServerMessage, type SessionRate } from "./protocol.ts";

/** The call runs wideband whatever the browser's rate: recognisers want 16 kHz, and 48 kHz would triple the work. */
const FORMAT: MediaFormat = { encoding: "l16", sampleRate: 16000 };
const FRAME_BYTES = (FORMAT.sampleRate / 50) * 2;

/** What the leg needs of the socket (Bun's ServerWebSocket fits). */
export interface BrowserSocket {
  send(data: string | Uint8Array): unknown;
  close(code?: number, reason?: string): void;
}

/**
 * A call held in a browser: microphone audio in, agent audio and captions out, over one WebSocket.
 * Audio is resampled at the edge when the browser runs at 48 kHz; nothing is buffered for pace.
 */
export class BrowserLeg extends LegListeners implements CallLeg {
  readonly format = FORMAT;
  private readonly cutter = new FrameCutter(FRAME_BYTES);
  private readonly pacing = new FramePacing();
  private readonly fromBrowser: StreamingResampler | null;
  private readonly toBrowser: StreamingResampler | null;
  private ended = false;
  private socketClosed = false;

  constructor(private readonly socket: BrowserSocket, readonly browserRate: SessionRate, private readonly callId: string) {
    super();
    this.fromBrowser = browserRate === FORMAT.sampleRate ? null : new StreamingResampler({ fromRate: browserRate, toRate: FORMAT.sampleRate });
    this.toBrowser = browserRate === FORMAT.sampleRate ? null : new StreamingResampler({ fromRate: FORMAT.sampleRate, toRate: browserRate });
    // The filter's leading zeros are kept: with them each 20 ms message completes its own 20 ms frame
    // (the filter delays the audio by 2 ms); without them every frame would wait for the next message.
  }

  /** The socket is open: the call is answered at once (nobody lets a browser ring). */
  open(): void {
    this.tell({ type: "session", call_id: this.callId, sample_rate: this.browserRate });
    this.emit({ type: "ringing" });
    queueMicrotask(() => this.emit({ type: "answered" }));
  }

  /** A binary message: whole 16-bit samples at the browser's rate, any length up to a second. */
  receiveAudio(bytes: Uint8Array): void {
    if (this.ended) return;
    if (bytes.length % 2) return this.fail(CLOSE.invalidPayload, `an audio message of ${bytes.length} bytes, not whole 16-bit samples`);
    if (bytes.length > MAX_AUDIO_MESSAGE_BYTES) return this.fail(CLOSE.tooBig, `an audio message of ${bytes.length} bytes (at most ${MAX_AUDIO_MESSAGE_BYTES})`);
    let pcm = bytes;
    if (this.fromBrowser) {
      const aligned = bytes.byteOffset % 2 ? bytes.slice() : bytes;
      const resampled = this.fromBrowser.push(new Int16Array(aligned.buffer, aligned.byteOffset, aligned.length / 2));
      pcm = new Uint8Array(resampled.buffer, resampled.byteOffset, resampled.byteLength);
    }
    const now = performance.now();
    for (const frame of this.cutter.cut(pcm)) {
      this.pacing.frame(now);
      this.deliverAudio(frame);
    }
  }

  mediaCounts(): MediaCounts {
    return this.pacing.counts();
  }

  receiveDigit(digit: string): void {
    if (!this.ended) this.deliverDigit(digit);
  }

  /** The visitor hung up (a `hangup` message, or the socket went away). */
  remoteHangup(): void {
    this.emit({ type: "ended", reason: "remote_hangup" });
    this.close(CLOSE.normal, "customer_hangup");
  }

  /** The browser broke the protocol: the call fails saying how, and the socket closes with `code`. */
  fail(code: number, problem: string): void {
    this.emit({ type: "ended", reason: "failed", detail: `the browser sent ${problem}`, code: "protocol_error" });
    this.close(code, "protocol_error");
  }

  sendAudio(frame: Uint8Array): void {
    if (this.ended) return;
    if (!this.toBrowser) {
      this.send(frame);
      return;
    }
    const aligned = frame.byteOffset % 2 ? frame.slice() : frame;
    const pcm = this.toBrowser.push(new Int16Array(aligned.buffer, aligned.byteOffset, aligned.length / 2));
    this.send(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength));
  }
  clearAudio(): void {
    this.tell({ type: "clear" });
  }
  caption(role: "caller" | "agent", text: string): void {
    this.tell({ type: "transcript", role, text });
  }
  sendDtmf(digits: string): void {
    this.tell({ type: "dtmf", digits });
  }
  async transfer(): Promise<void> {
    // A browser has no line to hand over: the session refuses, and the agent says so in its transcript.
    throw new Error("a browser session cannot be transferred to a phone number");
  }
  hangup(reason = "agent_hangup"): void {
    this.close(CLOSE.normal, reason);
  }

  private emit(event: LegEvent): void {
    if (this.ended) return;
    if (event.type === "ended") this.ended = true;
    this.deliverEvent(event);
    if (event.type === "ended") this.releaseAll();
  }

  private close(code: number, reason: string): void {
    this.ended = true;
    this.releaseAll();
    this.fromBrowser?.free();
    this.toBrowser?.free();
    if (this.socketClosed) return;
    this.tell({ type: "ended", reason });
    this.socketClosed = true;
    try {
      this.socket.close(code, reason);
    } catch {
      // already closed by the browser
    }
  }

  private send(data: Uint8Array): void {
    try {
      this.socket.send(data);
    } catch {
      // the socket is gone; its close handler ends the call
    }
  }

  private tell(message: ServerMessage): void {
    if (this.socketClosed) return;
    try {
      this.socket.send(JSON.stringify(message));
    } catch {
      // as above
    }
  }
}
