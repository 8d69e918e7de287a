// RTCP (RFC 3550 §6): our compound reports on the wire, the reception statistics they carry, and two
// RTP sessions over loopback UDP reporting to each other on their RTCP ports.
import { afterEach, describe, expect, test } from "bun:test";
import { ReceptionStats } from "../../src/telephony/rtp/reception.ts";
import { compoundReport, ntpMiddle, parseRtcp } from "../../src/telephony/rtp/rtcp.ts";
import { RtpSession } from "../../src/telephony/rtp/session.ts";
import { mediaClock } from "../../src/voice/media/media-clock.ts";

describe("RTCP packets", () => {
  const sender = { ssrc: 0x11223344, wallClockMs: Date.UTC(2026, 0, 1, 12, 0, 0, 500), rtpTimestamp: 160_000, packets: 50, octets: 8000 };
  const block = { ssrc: 0xaabbccdd, fractionLost: 64, cumulativeLost: 3, extendedHighestSequence: 0x1_0005, jitter: 40, lastSr: 0x12345678, delaySinceLastSr: 65536 };

  test("a sender report with one block, SDES CNAME and BYE, each packet's length in words as written", () => {
    const packet = compoundReport(sender, block, "parley-abc", true);
    const view = new DataView(packet.buffer);
    // SR: V=2, RC=1, PT=200, length 12 (13 words); SSRC; NTP seconds since 1900.
    expect([packet[0], packet[1], view.getUint16(2)]).toEqual([0x81, 200, 12]);
    expect(view.getUint32(4)).toBe(sender.ssrc);
    expect(view.getUint32(8)).toBe(Math.floor(sender.wallClockMs / 1000) + 2_208_988_800);
    expect(view.getUint32(12)).toBe(2 ** 31); // half a second
    expect([view.getUint32(16), view.getUint32(20), view.getUint32(24)]).toEqual([160_000, 50, 8000]);
    // SDES after 13 words: SC=1, PT=202, CNAME item.
    const sdes = 52;
    expect([packet[sdes], packet[sdes + 1]]).toEqual([0x81, 202]);
    expect(packet[sdes + 8]).toBe(1);
    expect(new TextDecoder().decode(packet.subarray(sdes + 10, sdes + 10 + packet[sdes + 9]))).toBe("parley-abc");
    const bye = sdes + 4 * (view.getUint16(sdes + 2) + 1);
    expect([packet[bye], packet[bye + 1], view.getUint32(bye + 4)]).toEqual([0x81, 203, sender.ssrc]);
    expect(packet.length).toBe(bye + 8);
    expect(packet.length % 4).toBe(0);
  });

  test("reads back what it writes; negative cumulative loss (duplicates) keeps its sign", () => {
    const parsed = parseRtcp(compoundReport(sender, { ...block, cumulativeLost: -2 }, "x", true))!;
    expect(parsed.blocks).toEqual([{ ...block, cumulativeLost: -2 }]);
    expect(parsed.senderNtpMiddle).toBe(ntpMiddle(sender.wallClockMs));
    expect(parsed.bye).toBe(true);
    expect(parseRtcp(compoundReport(sender, null, "x"))).toEqual({ senderNtpMiddle: ntpMiddle(sender.wallClockMs), blocks: [], bye: false });
  });

  test("refuses what is not RTCP; takes a lone packet of another RTCP type (baresip's APP PING) as RTCP saying nothing", () => {
    const rtp = new Uint8Array(172);
    rtp[0] = 0x80;
    expect(parseRtcp(rtp)).toBeNull();
    const truncated = compoundReport(sender, block, "x").subarray(0, 40);
    expect(parseRtcp(truncated)).toBeNull();
    const app = Buffer.from("80cc00036c1756ac50494e47504f4e47", "hex"); // as baresip sends it
    expect(parseRtcp(app)).toEqual({ senderNtpMiddle: null, blocks: [], bye: false });
  });
});

describe("reception statistics", () => {
  test("expected, lost and fraction lost per interval; the highest sequence extends across the wrap", () => {
    const stats = new ReceptionStats();
    // Packet n of the stream: its sequence number wraps, its timestamp and arrival keep pace.
    const packet = (n: number) => stats.update(7, (65530 + n) & 0xffff, 0xffffff00 + n * 160, n * 20);
    // 65530 … 65535, 0 … 9 with 3 and 4 missing: 16 expected, 14 received.
    for (let n = 0; n < 16; n++) if (n !== 9 && n !== 10) packet(n);
    let t = 15 * 20;
    const first = stats.block(t)!;
    expect(first).toMatchObject({ ssrc: 7, cumulativeLost: 2, extendedHighestSequence: 0x10009, fractionLost: Math.floor((2 * 256) / 16), lastSr: 0, delaySinceLastSr: 0 });
    // Perfectly paced packets, across the 32-bit timestamp wrap too: no jitter.
    expect(first.jitter).toBe(0);
    for (let n = 16; n < 26; n++) packet(n);
    t = 25 * 20;
    stats.senderReport(0x00010002, t - 500);
    const second = stats.block(t)!;
    expect(second).toMatchObject({ cumulativeLost: 2, fractionLost: 0, lastSr: 0x00010002, delaySinceLastSr: 32768 });
  });

  test("uneven arrival shows as jitter, in timestamp units", () => {
    const stats = new ReceptionStats();
    for (let i = 0; i < 200; i++) stats.update(1, i, i * 160, i * 20 + (i % 2 ? 10 : 0));
    // Arrivals alternate 10 ms early and late: |D| = 80 units, the estimator converges on it.
    expect(stats.block(4000)!.jitter).toBeGreaterThan(70);
  });
});

describe("RTCP between two RTP sessions", () => {
  const open: RtpSession[] = [];
  afterEach(() => {
    for (const session of open.splice(0)) session.close();
  });

  test("each side reports on the port above its RTP; each hears the other's loss, jitter and round trip", async () => {
    const RANGE = { min: 43000, max: 43998 };
    // Reports every 5 ticks (100 ms) instead of 5 s, so the exchange fits a test.
    const a = await RtpSession.open(mediaClock, "127.0.0.1", RANGE, 5);
    const b = await RtpSession.open(mediaClock, "127.0.0.1", RANGE, 5);
    open.push(a, b);
    const settings = (port: number) => ({ remote: { address: "127.0.0.1", port }, payloadType: 0, dtmfPayloadType: 101, silence: 0xff });
    a.configure(settings(b.port));
    b.configure(settings(a.port));
    const deadline = Date.now() + 5000;
    while ((a.stats.rtcp.farEnd?.roundTripMs == null || b.stats.rtcp.farEnd?.roundTripMs == null) && Date.now() < deadline) await Bun.sleep(20);
    for (const session of [a, b]) {
      const { rtcp } = session.stats;
      expect(rtcp.sent).toBeGreaterThan(0);
      expect(rtcp.received).toBeGreaterThan(0);
      expect(rtcp.farEnd!.cumulativeLost).toBe(0);
      expect(rtcp.farEnd!.fractionLost).toBe(0);
      // Loopback, paced by the same clock: a round trip of a few ms at most, jitter near zero.
      expect(rtcp.farEnd!.roundTripMs).toBeGreaterThanOrEqual(0);
      expect(rtcp.farEnd!.roundTripMs).toBeLessThan(50);
      expect(rtcp.farEnd!.jitterMs).toBeLessThan(10);
    }
    // RTCP is not mistaken for noise on either port.
    expect(a.stats.foreign + b.stats.foreign).toBe(0);
  });

  test("a closing session says BYE on RTCP", async () => {
    // The far end's RTP on 43502, so its RTCP is on 43503.
    const far = await Bun.udpSocket({ hostname: "127.0.0.1", port: 43502 });
    const received: Uint8Array[] = [];
    const rtcp = await Bun.udpSocket({ hostname: "127.0.0.1", port: 43503, socket: { data: (_s, data) => void received.push(new Uint8Array(data)) } });
    const session = await RtpSession.open(mediaClock, "127.0.0.1", { min: 43600, max: 43700 }, 1000);
    session.stream(false);
    session.configure({ remote: { address: "127.0.0.1", port: 43502 }, payloadType: 0, dtmfPayloadType: null, silence: 0xff });
    session.send(new Uint8Array(160));
    session.close();
    const deadline = Date.now() + 2000;
    while (!received.length && Date.now() < deadline) await Bun.sleep(10);
    far.close();
    rtcp.close();
    const report = parseRtcp(received[0])!;
    expect(report.bye).toBe(true);
  });
});
