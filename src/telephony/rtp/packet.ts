// RTP packets (RFC 3550 §5.1) and RFC 4733 telephone-events: the wire formats, nothing else.

export interface RtpPacket {
  payloadType: number;
  marker: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Uint8Array;
}

/** A datagram bigger than this is not a 20 ms G.711 frame of anyone's; it is dropped unread. */
export const MAX_RTP_BYTES = 1500;

/** The packet in a datagram, or null for anything that is not RTP version 2 (RTCP, STUN, noise). */
export function parseRtp(data: Uint8Array): RtpPacket | null {
  if (data.length < 12 || data.length > MAX_RTP_BYTES) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const first = data[0];
  if (first >> 6 !== 2) return null;
  const payloadType = data[1] & 0x7f;
  // 72–76 are RTCP packet types (RFC 5761 §4) sharing the port.
  if (payloadType >= 72 && payloadType <= 76) return null;
  let offset = 12 + (first & 0x0f) * 4;
  if (first & 0x10) {
    if (data.length < offset + 4) return null;
    offset += 4 + view.getUint16(offset + 2) * 4;
  }
  let end = data.length;
  if (first & 0x20) end -= data[data.length - 1];
  if (offset > end) return null;
  return {
    payloadType,
    marker: (data[1] & 0x80) !== 0,
    sequence: view.getUint16(2),
    timestamp: view.getUint32(4),
    ssrc: view.getUint32(8),
    payload: data.subarray(offset, end),
  };
}

export function serializeRtp(packet: RtpPacket): Uint8Array {
  const out = new Uint8Array(12 + packet.payload.length);
  const view = new DataView(out.buffer);
  out[0] = 0x80;
  out[1] = (packet.marker ? 0x80 : 0) | (packet.payloadType & 0x7f);
  view.setUint16(2, packet.sequence & 0xffff);
  view.setUint32(4, packet.timestamp >>> 0);
  view.setUint32(8, packet.ssrc >>> 0);
  out.set(packet.payload, 12);
  return out;
}

const EVENTS = "0123456789*#ABCD";

export interface TelephoneEvent {
  digit: string;
  end: boolean;
  volume: number;
  duration: number;
}

/** An RFC 4733 event payload, or null for events that are not keys (flash, tones). */
export function parseTelephoneEvent(payload: Uint8Array): TelephoneEvent | null {
  if (payload.length < 4 || payload[0] > 15) return null;
  return { digit: EVENTS[payload[0]], end: (payload[1] & 0x80) !== 0, volume: payload[1] & 0x3f, duration: (payload[2] << 8) | payload[3] };
}

export function telephoneEventPayload(event: TelephoneEvent): Uint8Array {
  const code = EVENTS.indexOf(event.digit.toUpperCase());
  if (code < 0) throw new Error(`${event.digit} is not a DTMF key`);
  return new Uint8Array([code, (event.end ? 0x80 : 0) | (event.volume & 0x3f), (event.duration >> 8) & 0xff, event.duration & 0xff]);
}
