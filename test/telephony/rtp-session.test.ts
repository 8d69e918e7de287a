// RTP sessions over loopback UDP: real sockets, the real media clock.
import { afterEach, describe, expect, test } from "bun:test";
import { serializeRtp } from "../../src/telephony/rtp/packet.ts";
import { RtpSession } from "../../src/telephony/rtp/session.ts";
import { mediaClock } from "../../src/voice/media/media-clock.ts";

const RANGE = { min: 42000, max: 42998 };
const open: RtpSession[] = [];
afterEach(() => {
  for (const session of open.splice(0)) session.close();
});

/** Two sessions talking to each other; silence keep-alive off unless asked for, so counts are exact. */
async function pair(keepAlive = false, rtcpReportTicks?: number) {
  const a = await RtpSession.open(mediaClock, "127.0.0.1", RANGE, rtcpReportTicks);
  const b = await RtpSession.open(mediaClock, "127.0.0.1", RANGE, rtcpReportTicks);
  open.push(a, b);
  a.stream(keepAlive);
  b.stream(keepAlive);
  const settings = (port: number) => ({ remote: { address: "127.0.0.1", port }, payloadType: 0, dtmfPayloadType: 101, silence: 0xff });
  a.configure(settings(b.port));
  b.configure(settings(a.port));
  return { a, b };
}

const frame = (n: number) => new Uint8Array(160).fill(n);
const until = async (done: () => boolean, ms = 3000) => {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await Bun.sleep(10);
};

describe("RTP session", () => {
  test("a quiet side still streams: a tick with nothing to send sends one frame of silence", async () => {
    const { a, b } = await pair(true);
    const heard: number[] = [];
    b.onFrame((f) => heard.push(f[0]));
    await until(() => heard.length >= 10);
    // 0xff is µ-law silence; every tick carried exactly one frame, so nothing was late or lost.
    expect(new Set(heard)).toEqual(new Set([0xff]));
    expect(b.stats).toMatchObject({ lost: 0, foreign: 0 });
    expect(a.stats.sent).toBeGreaterThanOrEqual(10);
    a.stream(false);
    const sent = a.stats.sent;
    await Bun.sleep(100);
    expect(a.stats.sent).toBe(sent);
  });

  test("binds even ports in the range", async () => {
    const { a, b } = await pair();
    for (const port of [a.port, b.port]) {
      expect(port % 2).toBe(0);
      expect(port).toBeGreaterThanOrEqual(RANGE.min);
      expect(port).toBeLessThanOrEqual(RANGE.max);
    }
  });

  test("frames arrive in order with nothing lost", async () => {
    const { a, b } = await pair();
    const heard: number[] = [];
    b.onFrame((f) => heard.push(f[0]));
    for (let i = 1; i <= 30; i++) a.send(frame(i));
    await until(() => heard.length >= 30);
    expect(heard.slice(0, 30)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(b.stats).toMatchObject({ received: 30, played: 30, lost: 0, late: 0, foreign: 0 });
    expect(a.stats.sent).toBe(30);
  });

  test("keys go as RFC 4733 events and arrive once each", async () => {
    const { a, b } = await pair();
    const keys: string[] = [];
    b.onDtmf((digit) => keys.push(digit));
    expect(a.sendDtmf("5#5")).toBe(true);
    await until(() => keys.length >= 3);
    await Bun.sleep(50);
    expect(keys).toEqual(["5", "#", "5"]);
  });

  test("keys share the audio's sequence numbers: received, not lost, in the stats and in the RTCP report on the stream", async () => {
    // a streams a frame every 20 ms and presses two keys in between; RTCP reports every 5 ticks (100 ms).
    const { a, b } = await pair(true, 5);
    b.stream(false);
    const heard: number[] = [];
    const keys: string[] = [];
    b.onFrame((f) => heard.push(f[0]));
    b.onDtmf((digit) => keys.push(digit));
    await until(() => heard.length >= 10);
    expect(a.sendDtmf("12")).toBe(true); // 2 × 7 packets: 5 with the key, its end twice more
    await until(() => keys.length >= 2 && heard.length >= 40);
    const reports = a.stats.rtcp.received;
    await until(() => a.stats.rtcp.received >= reports + 2);
    expect(keys).toEqual(["1", "2"]);
    expect(b.stats).toMatchObject({ lost: 0, late: 0, duplicate: 0, foreign: 0 });
    expect(b.stats.played).toBe(b.stats.received);
    // b's receiver report on a's stream, as a reads it: nothing lost, and the keys' fixed timestamps are not jitter.
    expect(a.stats.rtcp.farEnd).toMatchObject({ cumulativeLost: 0, fractionLost: 0 });
    expect(a.stats.rtcp.farEnd!.jitterMs).toBeLessThan(10);
  });

  test("symmetric RTP: the far end is answered where its packets come from; strangers are dropped", async () => {
    const { a, b } = await pair();
    // b believes a is elsewhere (a NAT rewrote a's port).
    b.configure({ remote: { address: "127.0.0.1", port: 9 }, payloadType: 0, dtmfPayloadType: 101, silence: 0xff });
    const heardByA: number[] = [];
    const heardByB: number[] = [];
    a.onFrame((f) => heardByA.push(f[0]));
    b.onFrame((f) => heardByB.push(f[0]));
    for (let i = 1; i <= 5; i++) a.send(frame(i));
    await until(() => heardByB.length >= 5);
    for (let i = 1; i <= 5; i++) b.send(frame(100 + i));
    await until(() => heardByA.length >= 5);
    expect(heardByA.slice(0, 5)).toEqual([101, 102, 103, 104, 105]);

    const stranger = await Bun.udpSocket({ hostname: "127.0.0.1" });
    const before = b.stats.received;
    for (let i = 0; i < 5; i++) stranger.send(serializeRtp({ payloadType: 0, marker: false, sequence: 9000 + i, timestamp: i * 160, ssrc: 1, payload: frame(66) }), b.port, "127.0.0.1");
    stranger.send(new Uint8Array(3000), b.port, "127.0.0.1");
    stranger.send(new TextEncoder().encode("not rtp at all"), b.port, "127.0.0.1");
    await Bun.sleep(100);
    stranger.close();
    expect(b.stats.foreign).toBe(7);
    expect(b.stats.received).toBe(before);
    expect(heardByB).not.toContain(66);
  });

  test("frames that never came are played as silence, counted lost", async () => {
    const far = await Bun.udpSocket({ hostname: "127.0.0.1" });
    const b = await RtpSession.open(mediaClock, "127.0.0.1", RANGE);
    open.push(b);
    b.configure({ remote: { address: "127.0.0.1", port: far.port }, payloadType: 0, dtmfPayloadType: null, silence: 0xff });
    const heard: number[] = [];
    b.onFrame((f) => heard.push(f[0]));
    // Every fifth packet is lost on the way.
    for (let seq = 1; seq <= 20; seq++) {
      if (seq % 5 !== 0) far.send(serializeRtp({ payloadType: 0, marker: false, sequence: seq, timestamp: seq * 160, ssrc: 7, payload: frame(seq) }), b.port, "127.0.0.1");
    }
    await until(() => heard.length >= 19);
    far.close();
    expect(heard.slice(0, 19)).toEqual(Array.from({ length: 19 }, (_, i) => ((i + 1) % 5 === 0 ? 0xff : i + 1)));
    expect(b.stats).toMatchObject({ received: 16, played: 16, lost: 3 });
    expect(b.sendDtmf("1")).toBe(false);
  });
});
