import type { MediaFormat } from "../types.ts";
import { SimulatedLegBase } from "./carrier.ts";

/** What the softphone's socket must offer the leg (Bun's ServerWebSocket fits). */
export interface SoftphoneSocket {
  send(data: string | Uint8Array): unknown;
  close(code?: number, reason?: string): void;
}

/** Messages the server sends as text (audio goes as binary frames). */
export type SoftphoneEvent =
  | { type: "call"; call_id: string; status: "ringing" }
  | { type: "answered"; call_id: string }
  | { type: "clear" }
  | { type: "dtmf"; digits: string }
  | { type: "transferred"; to: string }
  | { type: "ended"; reason: string };

/**
 * An inbound call from the softphone: a WebSocket that carries the caller's audio (binary frames of
 * 20 ms in the negotiated format) and the agent's audio back, paced by the call's media clock.
 */
export class SoftphoneLeg extends SimulatedLegBase {
  override readonly format: MediaFormat;
  private socketClosed = false;

  constructor(private readonly socket: SoftphoneSocket, format: MediaFormat, private readonly callId: string) {
    super();
    this.format = format;
  }

  /** The number answers at once (an agent never lets it ring). */
  ring(): void {
    this.tell({ type: "call", call_id: this.callId, status: "ringing" });
    this.emit({ type: "ringing" });
    queueMicrotask(() => {
      if (this.ended) return;
      this.emit({ type: "answered" });
      this.tell({ type: "answered", call_id: this.callId });
    });
  }

  /** A binary frame from the caller. */
  receiveAudio(frame: Uint8Array): void {
    if (!this.ended) this.deliver(frame);
  }

  receiveDtmf(digit: string): void {
    if (!this.ended) this.deliverDigit(digit);
  }

  /** The caller hung up (a `hangup` message, or the socket dropped): the call ends, then the socket closes. */
  remoteHangup(): void {
    this.emit({ type: "ended", reason: "remote_hangup" });
    this.close("customer_hangup");
  }

  sendAudio(frame: Uint8Array): void {
    if (!this.ended) this.socket.send(frame);
  }
  override clearAudio(): void {
    this.tell({ type: "clear" });
  }
  sendDtmf(digits: string): void {
    this.tell({ type: "dtmf", digits });
  }
  async transfer(to: string): Promise<void> {
    this.tell({ type: "transferred", to });
    this.close("transferred");
  }
  hangup(): void {
    this.close("hangup");
  }

  private close(reason: string): void {
    this.ended = true;
    if (this.socketClosed) return;
    this.socketClosed = true;
    this.tell({ type: "ended", reason });
    try {
      this.socket.close(1000, reason);
    } catch {
      // already closed by the other side
    }
  }

  private tell(event: SoftphoneEvent): void {
    try {
      this.socket.send(JSON.stringify(event));
    } catch {
      // the socket is already gone; its close handler ends the call
    }
  }
}
