// A call's RTCP (RFC 3550 §6) on the port above its RTP: a sender report with SDES every ~5 s
// (randomised, §6.3.1), carrying a reception report on the far end's stream, and BYE when the stream
// ends; the far end's own reports are read for what they say about our stream (loss, jitter, round trip).
import { randomBytes } from "node:crypto";
import { ReceptionStats } from "./reception.ts";
import { compoundReport, ntpMiddle, parseRtcp } from "./rtcp.ts";

/** Media-clock ticks (20 ms) between reports: 5 s, RFC 3550's minimum interval. */
const REPORT_TICKS = 250;

export interface RtcpStats {
  sent: number;
  received: number;
  /** What the far end's last report said about our stream; null until it sent one. */
  farEnd: { fractionLost: number; cumulativeLost: number; jitterMs: number; roundTripMs: number | null } | null;
}

interface Peer {
  address: string;
  port: number;
}

export class RtcpChannel {
  private readonly reception = new ReceptionStats();
  private readonly cname = `parley-${randomBytes(6).toString("hex")}`;
  private remote: Peer | null = null;
  /** The far end's RTCP came from somewhere other than RTP port + 1 (NAT): answer it there. */
  private latched = false;
  private packets = 0;
  private octets = 0;
  /** The first report goes out after about half an interval (§6.2). */
  private ticksToReport: number;
  readonly stats: RtcpStats = { sent: 0, received: 0, farEnd: null };
  private closed = false;

  constructor(
    private readonly socket: Bun.udp.Socket<"buffer">,
    private readonly ssrc: number,
    /** Our RTP timestamp now, for the sender report. */
    private readonly rtpNow: () => number,
    /** Ticks between reports on average (tests shorten it). */
    private readonly reportTicks = REPORT_TICKS,
  ) {
    this.ticksToReport = Math.max(1, Math.round(reportTicks * (0.25 + Math.random() * 0.5)));
  }

  get port(): number {
    return this.socket.port;
  }

  /** Reports go to the port above the far end's RTP, unless its RTCP has shown where it really is. */
  aim(rtpRemote: Peer): void {
    if (this.remote && this.remote.address !== rtpRemote.address) this.latched = false;
    if (!this.latched) this.remote = { address: rtpRemote.address, port: rtpRemote.port + 1 };
  }

  rtpSent(payloadBytes: number): void {
    this.packets++;
    this.octets += payloadBytes;
  }

  /** `timestamp` null: a key event's packet, counted but not timed (ReceptionStats.update). */
  rtpReceived(ssrc: number, sequence: number, timestamp: number | null): void {
    this.reception.update(ssrc, sequence, timestamp, performance.now());
  }

  /**
   * A datagram on the RTCP port (or RTCP on the RTP port, muxed). As with symmetric RTP, the first RTCP
   * to come shows where the far end really is (its SDP may name an address it does not send from);
   * after that only that address counts.
   */
  receive(data: Uint8Array, port: number, address: string): boolean {
    if (this.closed || !this.remote || (this.latched && address !== this.remote.address)) return false;
    const report = parseRtcp(data);
    if (!report) return false;
    this.stats.received++;
    if (!this.latched) {
      this.remote = { address, port };
      this.latched = true;
    }
    if (report.senderNtpMiddle !== null) this.reception.senderReport(report.senderNtpMiddle, performance.now());
    const ours = report.blocks.find((block) => block.ssrc === this.ssrc);
    if (ours) {
      // Round trip (§6.4.1): now − LSR − DLSR, all in 1/65536 s; no LSR means the far end has heard no SR of ours yet.
      const rtt = ours.lastSr ? (ntpMiddle(Date.now()) - ours.lastSr - ours.delaySinceLastSr) >>> 0 : null;
      this.stats.farEnd = {
        fractionLost: ours.fractionLost / 256,
        cumulativeLost: ours.cumulativeLost,
        jitterMs: ours.jitter / 8,
        roundTripMs: rtt !== null && rtt < 0x80000000 ? Math.round((rtt / 65.536) * 10) / 10 : null,
      };
    }
    return true;
  }

  /** Called every 20 ms tick while the stream is set up. */
  tick(): void {
    if (--this.ticksToReport > 0) return;
    this.ticksToReport = Math.max(1, Math.round(this.reportTicks * (0.5 + Math.random())));
    this.report(false);
  }

  /** The stream ends: a last report with BYE, then the port is let go. */
  close(): void {
    if (this.closed) return;
    this.report(true);
    this.closed = true;
    this.socket.close();
  }

  private report(bye: boolean): void {
    if (!this.remote || this.closed) return;
    const now = Date.now();
    const packet = compoundReport({ ssrc: this.ssrc, wallClockMs: now, rtpTimestamp: this.rtpNow(), packets: this.packets, octets: this.octets }, this.reception.block(performance.now()), this.cname, bye);
    this.socket.send(packet, this.remote.port, this.remote.address);
    this.stats.sent++;
  }
}
