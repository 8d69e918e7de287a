// One call's RTP stream over UDP: 20 ms G.711 frames out with running sequence and timestamp, frames
// in through a jitter buffer that hands them on as they arrive, RFC 4733 keys both ways, RTCP reports
// on the port above (rtcp-channel.ts), and symmetric RTP
// (the far end behind NAT is answered where its packets really come from).
import type { MediaClock } from "../../voice/media/media-clock.ts";
import { JitterBuffer, type JitterStats } from "./jitter-buffer.ts";
import { RtcpChannel, type RtcpStats } from "./rtcp-channel.ts";
import { parseRtp, parseTelephoneEvent, serializeRtp, telephoneEventPayload } from "./packet.ts";

const SAMPLES_PER_FRAME = 160;
/** A key is sent for 100 ms, with its end packet three times (RFC 4733 §2.5.1.4). */
const DTMF_PACKETS = 5;
const DTMF_END_REPEATS = 3;

export interface RtpPeer {
  address: string;
  port: number;
}

export interface RtpStreamSettings {
  remote: RtpPeer;
  payloadType: number;
  dtmfPayloadType: number | null;
  /** G.711 silence for the frames that never came (0xff µ-law, 0xd5 A-law). */
  silence: number;
}

export interface RtpSessionStats extends JitterStats {
  sent: number;
  /** Datagrams dropped because they came from somewhere other than the far end, or were not RTP. */
  foreign: number;
  rtcp: RtcpStats;
}

type UdpSocket = Bun.udp.Socket<"buffer">;

type OnDatagram = (data: Uint8Array, port: number, address: string) => void;

async function bindOne(host: string, port: number, onData: OnDatagram): Promise<UdpSocket | null> {
  try {
    return await Bun.udpSocket({
      hostname: host,
      port,
      // ICMP "port unreachable" from a far end that went away comes back as an error: the call's signalling deals with that.
      socket: { data: (_socket, data, fromPort, address) => onData(data, fromPort, address), error: () => {} },
    });
  } catch {
    return null; // taken
  }
}

/** Binds the first free even port of the range for RTP and the odd one above it for RTCP (RFC 3550 §11). */
async function bindPair(host: string, range: { min: number; max: number }, onRtp: OnDatagram, onRtcp: OnDatagram): Promise<{ rtp: UdpSocket; rtcp: UdpSocket }> {
  // Pairs lie wholly inside the range: the RTCP port is at most range.max.
  const span = Math.floor((range.max - range.min - 1) / 2) + 1;
  const start = Math.floor(Math.random() * span);
  for (let i = 0; i < span; i++) {
    const port = range.min + 2 * ((start + i) % span);
    const rtp = await bindOne(host, port, onRtp);
    if (!rtp) continue;
    const rtcp = await bindOne(host, port + 1, onRtcp);
    if (rtcp) return { rtp, rtcp };
    rtp.close();
  }
  throw new Error(`no free pair of RTP/RTCP ports between ${range.min} and ${range.max}`);
}

export class RtpSession {
  private settings: RtpStreamSettings | null = null;
  private readonly jitter = new JitterBuffer((frame) => {
    if (this.settings) this.frameHandler?.(frame ?? new Uint8Array(SAMPLES_PER_FRAME).fill(this.settings.silence));
  });
  private readonly ssrc = (Math.random() * 0xffffffff) >>> 0;
  private sequence = Math.floor(Math.random() * 0xffff);
  private timestamp = (Math.random() * 0xffffffff) >>> 0;
  private latched = false;
  private lastEvent: { timestamp: number; digit: string } | null = null;
  private frameHandler: ((frame: Uint8Array) => void) | null = null;
  private dtmfHandler: ((digit: string) => void) | null = null;
  private unsubscribe: (() => void) | null = null;
  private sent = 0;
  private foreign = 0;
  /** Frames sent since the last tick: a tick with none sends silence, since PBXes hang up on a line that goes quiet (RTP timeout). */
  private sentSinceTick = 0;
  private keepStreaming = true;
  private closed = false;
  private readonly rtcp: RtcpChannel;

  private constructor(
    private readonly socket: UdpSocket,
    rtcpSocket: UdpSocket,
    private readonly clock: MediaClock,
    rtcpReportTicks?: number,
  ) {
    this.rtcp = new RtcpChannel(rtcpSocket, this.ssrc, () => this.timestamp, rtcpReportTicks);
  }

  /** `rtcpReportTicks`: 20 ms ticks between RTCP reports on average (5 s unless a test says otherwise). */
  static async open(clock: MediaClock, host: string, range: { min: number; max: number }, rtcpReportTicks?: number): Promise<RtpSession> {
    let session: RtpSession | null = null;
    const sockets = await bindPair(
      host,
      range,
      (data, port, address) => session?.receive(data, port, address),
      (data, port, address) => session?.receiveRtcp(data, port, address),
    );
    session = new RtpSession(sockets.rtp, sockets.rtcp, clock, rtcpReportTicks);
    return session;
  }

  get port(): number {
    return this.socket.port;
  }

  get stats(): RtpSessionStats {
    return { ...this.jitter.stats, sent: this.sent, foreign: this.foreign, rtcp: { ...this.rtcp.stats } };
  }

  /** Where and how to send (from the SDP); until then nothing is sent and nothing is played. */
  configure(settings: RtpStreamSettings): void {
    const moved = this.settings && (this.settings.remote.address !== settings.remote.address || this.settings.remote.port !== settings.remote.port);
    this.settings = settings;
    if (moved) this.latched = false;
    this.rtcp.aim(settings.remote);
    this.unsubscribe ??= this.clock.subscribe(() => this.tick());
  }

  /** The caller's frames in order, as they arrive (silence fills losses). */
  onFrame(handler: (frame: Uint8Array) => void): void {
    this.frameHandler = handler;
  }

  onDtmf(handler: (digit: string) => void): void {
    this.dtmfHandler = handler;
  }

  /** Whether silence is sent when nothing else is (off while the far end holds the call). */
  stream(on: boolean): void {
    this.keepStreaming = on;
  }

  /** One 20 ms frame to the far end. */
  send(frame: Uint8Array): void {
    if (!this.settings || this.closed) return;
    this.sentSinceTick++;
    this.transmit({ payloadType: this.settings.payloadType, marker: false, payload: frame });
    this.timestamp = (this.timestamp + SAMPLES_PER_FRAME) >>> 0;
  }

  /** Keys as RFC 4733 events; false when the far end takes none (the caller sends tones in-band). */
  sendDtmf(digits: string): boolean {
    if (!this.settings || this.settings.dtmfPayloadType === null) return false;
    const payloadType = this.settings.dtmfPayloadType;
    for (const digit of digits) {
      const start = this.timestamp;
      for (let i = 1; i <= DTMF_PACKETS; i++) {
        const end = i === DTMF_PACKETS;
        const payload = telephoneEventPayload({ digit, end, volume: 10, duration: i * SAMPLES_PER_FRAME });
        for (let r = 0; r < (end ? DTMF_END_REPEATS : 1); r++) this.transmit({ payloadType, marker: i === 1, payload }, start);
      }
      this.timestamp = (this.timestamp + DTMF_PACKETS * SAMPLES_PER_FRAME) >>> 0;
    }
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    this.rtcp.close();
    this.socket.close();
  }

  private transmit(packet: { payloadType: number; marker: boolean; payload: Uint8Array }, timestamp = this.timestamp): void {
    const remote = this.settings!.remote;
    this.sequence = (this.sequence + 1) & 0xffff;
    this.socket.send(serializeRtp({ ...packet, sequence: this.sequence, timestamp, ssrc: this.ssrc }), remote.port, remote.address);
    this.sent++;
    this.rtcp.rtpSent(packet.payload.length);
  }

  private receive(data: Uint8Array, port: number, address: string): void {
    const settings = this.settings;
    if (!settings || this.closed) return;
    const packet = parseRtp(data);
    if (!packet) {
      // RTCP muxed onto the RTP port (RFC 5761) is read; anything else is noise.
      if (!this.rtcp.receive(data, port, address)) this.foreign++;
      return;
    }
    const fromRemote = address === settings.remote.address && port === settings.remote.port;
    if (!fromRemote) {
      // Symmetric RTP: the first stream to arrive is the far end, wherever NAT put it; later strangers are dropped.
      if (this.latched) {
        this.foreign++;
        return;
      }
      settings.remote = { address, port };
      this.rtcp.aim(settings.remote);
    }
    this.latched = true;
    if (packet.payloadType === settings.dtmfPayloadType) {
      const event = parseTelephoneEvent(packet.payload);
      // One key per event (its timestamp), however many packets and end repeats carry it.
      if (event && (this.lastEvent?.timestamp !== packet.timestamp || this.lastEvent.digit !== event.digit)) {
        this.lastEvent = { timestamp: packet.timestamp, digit: event.digit };
        this.dtmfHandler?.(event.digit);
      }
      // Its sequence number is the audio stream's: received, not a gap.
      this.rtcp.rtpReceived(packet.ssrc, packet.sequence, null);
      this.jitter.push(packet.sequence, null);
      return;
    }
    if (packet.payloadType !== settings.payloadType || packet.payload.length !== SAMPLES_PER_FRAME) {
      this.foreign++;
      return;
    }
    this.rtcp.rtpReceived(packet.ssrc, packet.sequence, packet.timestamp);
    this.jitter.push(packet.sequence, packet.payload.slice());
  }

  private receiveRtcp(data: Uint8Array, port: number, address: string): void {
    if (this.settings && !this.closed && !this.rtcp.receive(data, port, address)) this.foreign++;
  }

  private tick(): void {
    if (this.settings && !this.closed && this.keepStreaming && this.sentSinceTick === 0) {
      this.transmit({ payloadType: this.settings.payloadType, marker: false, payload: new Uint8Array(SAMPLES_PER_FRAME).fill(this.settings.silence) });
      this.timestamp = (this.timestamp + SAMPLES_PER_FRAME) >>> 0;
    }
    this.sentSinceTick = 0;
    this.jitter.tick();
    if (!this.closed) this.rtcp.tick();
  }
}
