// RTCP (RFC 3550 §6): the sender report with one reception report block, SDES with our CNAME, and
// BYE, written as compound packets; and the parts of a far end's reports we use (what it says about
// our stream, and its sender report's time for the round trip). The wire formats, nothing else.

export const RTCP_SR = 200;
export const RTCP_RR = 201;
const RTCP_SDES = 202;
const RTCP_BYE = 203;
const SDES_CNAME = 1;

/** A reception report block (§6.4.1): how one source's stream is arriving. */
export interface ReportBlock {
  ssrc: number;
  /** Fraction lost since the last report, in 1/256ths. */
  fractionLost: number;
  cumulativeLost: number;
  extendedHighestSequence: number;
  /** Interarrival jitter in RTP timestamp units. */
  jitter: number;
  /** Middle 32 bits of the NTP time of the last SR received from that source (0 if none). */
  lastSr: number;
  /** Delay since that SR, in 1/65536 s. */
  delaySinceLastSr: number;
}

export interface SenderInfo {
  ssrc: number;
  /** Wall-clock time, ms since the Unix epoch (written as NTP). */
  wallClockMs: number;
  rtpTimestamp: number;
  packets: number;
  octets: number;
}

/** What a far end's compound RTCP packet says. */
export interface RtcpReport {
  /** Its sender report's NTP middle 32 bits, when it sent one (for the LSR of our next block). */
  senderNtpMiddle: number | null;
  blocks: ReportBlock[];
  bye: boolean;
}

const NTP_EPOCH_OFFSET_S = 2_208_988_800;

/** Middle 32 bits of the NTP timestamp for a wall-clock time (the LSR / RTT unit: 1/65536 s). */
export function ntpMiddle(wallClockMs: number): number {
  const seconds = Math.floor(wallClockMs / 1000) + NTP_EPOCH_OFFSET_S;
  const fraction = Math.floor(((wallClockMs % 1000) / 1000) * 65536);
  return ((seconds & 0xffff) * 65536 + fraction) >>> 0;
}

function header(view: DataView, offset: number, count: number, type: number, words: number): void {
  view.setUint8(offset, 0x80 | count);
  view.setUint8(offset + 1, type);
  view.setUint16(offset + 2, words - 1);
}

function writeBlock(view: DataView, offset: number, block: ReportBlock): void {
  view.setUint32(offset, block.ssrc >>> 0);
  const lost = Math.max(-0x800000, Math.min(0x7fffff, block.cumulativeLost)) & 0xffffff;
  view.setUint32(offset + 4, ((block.fractionLost & 0xff) << 24 | lost) >>> 0);
  view.setUint32(offset + 8, block.extendedHighestSequence >>> 0);
  view.setUint32(offset + 12, block.jitter >>> 0);
  view.setUint32(offset + 16, block.lastSr >>> 0);
  view.setUint32(offset + 20, block.delaySinceLastSr >>> 0);
}

/** SR (with a block when we hear the far end), SDES CNAME, and BYE when the stream ends. */
export function compoundReport(sender: SenderInfo, block: ReportBlock | null, cname: string, bye = false): Uint8Array {
  const name = new TextEncoder().encode(cname.slice(0, 255));
  const srWords = 7 + (block ? 6 : 0);
  // SDES: SSRC, then type, length, text, and at least one zero byte ending the item list, padded to a word.
  const sdesWords = 1 + 1 + Math.ceil((2 + name.length + 1) / 4);
  const byeWords = bye ? 2 : 0;
  const out = new Uint8Array(4 * (srWords + sdesWords + byeWords));
  const view = new DataView(out.buffer);
  header(view, 0, block ? 1 : 0, RTCP_SR, srWords);
  view.setUint32(4, sender.ssrc >>> 0);
  const seconds = Math.floor(sender.wallClockMs / 1000) + NTP_EPOCH_OFFSET_S;
  view.setUint32(8, seconds >>> 0);
  view.setUint32(12, Math.floor(((sender.wallClockMs % 1000) / 1000) * 2 ** 32) >>> 0);
  view.setUint32(16, sender.rtpTimestamp >>> 0);
  view.setUint32(20, sender.packets >>> 0);
  view.setUint32(24, sender.octets >>> 0);
  if (block) writeBlock(view, 28, block);
  let offset = 4 * srWords;
  header(view, offset, 1, RTCP_SDES, sdesWords);
  view.setUint32(offset + 4, sender.ssrc >>> 0);
  out[offset + 8] = SDES_CNAME;
  out[offset + 9] = name.length;
  out.set(name, offset + 10);
  offset += 4 * sdesWords;
  if (bye) {
    header(view, offset, 1, RTCP_BYE, byeWords);
    view.setUint32(offset + 4, sender.ssrc >>> 0);
  }
  return out;
}

/** A compound RTCP packet's reports, or null when the datagram is not RTCP. */
export function parseRtcp(data: Uint8Array): RtcpReport | null {
  if (data.length < 8 || data.length > 1500 || data[0] >> 6 !== 2) return null;
  // A compound packet should start with SR or RR (§6.1), but peers send lone APP packets too (baresip's
  // PING/PONG): any RTCP packet type (192–223, RFC 5761 §4) is RTCP; only SR, RR and BYE are read.
  if (data[1] < 192 || data[1] > 223) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const report: RtcpReport = { senderNtpMiddle: null, blocks: [], bye: false };
  for (let offset = 0; offset + 4 <= data.length; ) {
    if (data[offset] >> 6 !== 2) return null;
    const count = data[offset] & 0x1f;
    const type = data[offset + 1];
    const end = offset + 4 * (view.getUint16(offset + 2) + 1);
    if (end > data.length) return null;
    if (type === RTCP_SR || type === RTCP_RR) {
      let block = offset + 8;
      if (type === RTCP_SR) {
        if (offset + 28 > end) return null;
        report.senderNtpMiddle = ((view.getUint32(offset + 8) & 0xffff) * 65536 + (view.getUint32(offset + 12) >>> 16)) >>> 0;
        block = offset + 28;
      }
      for (let i = 0; i < count && block + 24 <= end; i++, block += 24) {
        const word = view.getUint32(block + 4);
        const lost = word & 0xffffff;
        report.blocks.push({
          ssrc: view.getUint32(block),
          fractionLost: word >>> 24,
          cumulativeLost: lost & 0x800000 ? lost - 0x1000000 : lost,
          extendedHighestSequence: view.getUint32(block + 8),
          jitter: view.getUint32(block + 12),
          lastSr: view.getUint32(block + 16),
          delaySinceLastSr: view.getUint32(block + 20),
        });
      }
    } else if (type === RTCP_BYE) report.bye = true;
    offset = end;
  }
  return report;
}
