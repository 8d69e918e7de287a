// SDP offer/answer for G.711 and telephone-events; RTP and RFC 4733 wire formats; the jitter buffer.
import { describe, expect, test } from "bun:test";
import { JitterBuffer } from "../../src/telephony/rtp/jitter-buffer.ts";
import { parseRtp, parseTelephoneEvent, serializeRtp, telephoneEventPayload } from "../../src/telephony/rtp/packet.ts";
import { answerOffer, createOffer, readAnswer, SdpRefused } from "../../src/telephony/sip/sdp.ts";

const local = { address: "127.0.0.1", port: 40000, sessionId: 42, version: 1 };

// What baresip 1.0 offers with the g711 module: both laws, telephone-event on 101.
const BARESIP_OFFER = [
  "v=0",
  "o=- 1380417036 1607532513 IN IP4 192.168.1.20",
  "s=-",
  "c=IN IP4 192.168.1.20",
  "t=0 0",
  "m=audio 10120 RTP/AVP 8 0 101",
  "a=rtpmap:8 PCMA/8000",
  "a=rtpmap:0 PCMU/8000",
  "a=rtpmap:101 telephone-event/8000",
  "a=fmtp:101 0-15",
  "a=ptime:20",
  "a=sendrecv",
  "",
].join("\r\n");

describe("SDP offer/answer", () => {
  test("our offer lists PCMU, PCMA and telephone-event at 20 ms", () => {
    const offer = createOffer(local);
    expect(offer).toContain("m=audio 40000 RTP/AVP 0 8 101");
    expect(offer).toContain("a=rtpmap:101 telephone-event/8000");
    expect(offer).toContain("a=ptime:20");
    expect(offer).toContain("c=IN IP4 127.0.0.1");
  });

  test("answering prefers PCMU, keeps the far end's telephone-event type, mirrors its direction", () => {
    const { media, sdp } = answerOffer(BARESIP_OFFER, local);
    expect(media).toEqual({ remote: { address: "192.168.1.20", port: 10120 }, encoding: "pcmu", payloadType: 0, dtmfPayloadType: 101, direction: "sendrecv" });
    expect(sdp).toContain("m=audio 40000 RTP/AVP 0 101");
    const alaw = answerOffer(BARESIP_OFFER.replace("RTP/AVP 8 0 101", "RTP/AVP 8 101"), local);
    expect(alaw.media.encoding).toBe("pcma");
    // Static payload types need no rtpmap.
    const bare = answerOffer("v=0\r\no=- 1 1 IN IP4 10.1.1.1\r\ns=-\r\nc=IN IP4 10.1.1.1\r\nt=0 0\r\nm=audio 5004 RTP/AVP 0\r\n", local);
    expect(bare.media).toMatchObject({ encoding: "pcmu", dtmfPayloadType: null });
  });

  test("hold: sendonly is answered recvonly, and c=0.0.0.0 inactive", () => {
    expect(answerOffer(BARESIP_OFFER.replace("a=sendrecv", "a=sendonly"), local).media.direction).toBe("recvonly");
    expect(answerOffer(BARESIP_OFFER.replaceAll("IN IP4 192.168.1.20", "IN IP4 0.0.0.0"), local).media.direction).toBe("inactive");
  });

  test("refusals (488): no common codec, no audio, secure or garbled media", () => {
    const cases: [string, RegExp][] = [
      [BARESIP_OFFER.replace("RTP/AVP 8 0 101", "RTP/AVP 9 101").replace("a=rtpmap:8 PCMA/8000", "a=rtpmap:9 G722/8000"), /no common codec/],
      [BARESIP_OFFER.replace("m=audio 10120", "m=audio 0"), /no audio/],
      [BARESIP_OFFER.replace("RTP/AVP", "RTP/SAVP"), /plain RTP\/AVP only/],
      ["m=audio 1 RTP/AVP 0\r\n", /no connection address/],
    ];
    for (const [sdp, reason] of cases) {
      expect(() => answerOffer(sdp, local)).toThrow(SdpRefused);
      expect(() => answerOffer(sdp, local)).toThrow(reason);
    }
  });

  test("reading an answer to our offer", () => {
    const answer = answerOffer(createOffer(local), { ...local, port: 40002, codecs: ["pcma"] }).sdp;
    expect(readAnswer(answer)).toMatchObject({ remote: { address: "127.0.0.1", port: 40002 }, encoding: "pcma", payloadType: 8, dtmfPayloadType: 101 });
  });
});

describe("RTP", () => {
  test("packets round-trip; CSRCs, extensions and padding are skipped", () => {
    const payload = new Uint8Array(160).fill(0xff);
    const packet = { payloadType: 0, marker: true, sequence: 65535, timestamp: 4294967200, ssrc: 0xdeadbeef, payload };
    expect(parseRtp(serializeRtp(packet))).toEqual(packet);
    const fancy = new Uint8Array([0xb1, 0x00, 0, 1, 0, 0, 0, 160, 0, 0, 0, 7, /* csrc */ 1, 2, 3, 4, /* ext */ 0xbe, 0xde, 0, 1, 9, 9, 9, 9, /* payload */ 5, 6, /* padding */ 0, 2]);
    expect(parseRtp(fancy)).toMatchObject({ sequence: 1, timestamp: 160, ssrc: 7, payload: new Uint8Array([5, 6]) });
  });

  test("what is not RTP is ignored: short, oversized, version 1, RTCP on the same port", () => {
    expect(parseRtp(new Uint8Array(8))).toBeNull();
    expect(parseRtp(new Uint8Array(2000).fill(0x80))).toBeNull();
    expect(parseRtp(new Uint8Array(20).fill(0x40))).toBeNull();
    expect(parseRtp(new Uint8Array([0x80, 200, 0, 6, ...new Uint8Array(24)]))).toBeNull();
  });

  test("RFC 4733 events both ways", () => {
    const payload = telephoneEventPayload({ digit: "#", end: true, volume: 10, duration: 800 });
    expect([...payload]).toEqual([11, 0x8a, 3, 32]);
    expect(parseTelephoneEvent(payload)).toEqual({ digit: "#", end: true, volume: 10, duration: 800 });
    expect(parseTelephoneEvent(new Uint8Array([16, 0, 0, 0]))).toBeNull();
  });
});

describe("jitter buffer", () => {
  const frame = (n: number) => new Uint8Array([n & 0xff]);
  /** A buffer and what it has handed on so far: numbers for frames, "lost" for gaps given up. */
  const buffer = (maxWaitTicks = 2, capacity = 50) => {
    const out: (number | "lost")[] = [];
    const jitter = new JitterBuffer((f) => out.push(f === null ? "lost" : f[0]), maxWaitTicks, capacity);
    return { jitter, out };
  };

  test("frames in order are handed on at once, with no pre-buffer", () => {
    const { jitter, out } = buffer();
    jitter.push(10, frame(10));
    expect(out).toEqual([10]);
    jitter.push(11, frame(11));
    expect(out).toEqual([10, 11]);
  });

  test("reorders, drops duplicates and late packets, reports losses once a gap has waited", () => {
    const { jitter, out } = buffer(2);
    for (const seq of [10, 12, 11, 14, 14]) jitter.push(seq, frame(seq));
    expect(out).toEqual([10, 11, 12]); // 12 waited for 11; 14 (held twice) waits for 13
    jitter.push(11, frame(11)); // after 11 was played
    jitter.tick();
    expect(out).toEqual([10, 11, 12]);
    jitter.push(15, frame(15));
    jitter.tick(); // 13 has waited two ticks: given up
    expect(out).toEqual([10, 11, 12, "lost", 14, 15]);
    jitter.push(13, frame(13)); // too late now
    expect(jitter.stats).toEqual({ received: 8, played: 5, lost: 1, late: 2, duplicate: 1 });
  });

  test("a gap that fills in time costs no loss, and the next gap waits afresh", () => {
    const { jitter, out } = buffer(2);
    jitter.push(1, frame(1));
    jitter.push(3, frame(3));
    jitter.tick();
    jitter.push(2, frame(2));
    expect(out).toEqual([1, 2, 3]);
    jitter.push(5, frame(5));
    jitter.tick();
    expect(out).toEqual([1, 2, 3]);
    jitter.tick();
    expect(out).toEqual([1, 2, 3, "lost", 5]);
  });

  test("sequence numbers wrap", () => {
    const { jitter, out } = buffer();
    for (const seq of [65534, 0, 65535, 1]) jitter.push(seq, frame(seq));
    expect(out).toEqual([254, 255, 0, 1]);
  });

  test("a far end that jumps far ahead is followed, not waited for and not filled", () => {
    const { jitter, out } = buffer(2, 10);
    jitter.push(100, frame(100));
    for (let seq = 5000; seq < 5012; seq++) jitter.push(seq, frame(seq));
    expect(out.filter((f) => f === "lost")).toEqual([]);
    expect(out.length).toBeGreaterThanOrEqual(11);
    jitter.tick();
    jitter.tick();
    expect(out.slice(1)).toEqual(Array.from({ length: 12 }, (_, i) => (5000 + i) & 0xff));
  });
});
