// The pieces of the WebSocket media leg on their own: Twilio's signature as its library computes
// it, the Twilio frame codec, and the cutter that turns chunks of any size into 20 ms frames.
import { describe, expect, test } from "bun:test";
import twilio from "twilio";
import { FrameCutter } from "../../src/telephony/media-stream/frame-cutter.ts";
import { twilioSignature, verifyTwilio } from "../../src/telephony/twilio/signature.ts";
import { twilioCodec } from "../../src/telephony/twilio/stream-codec.ts";
import { dialTwiml, streamTwiml } from "../../src/telephony/twilio/twiml.ts";

const TOKEN = "12345678901234567890123456789012";

describe("X-Twilio-Signature", () => {
  test("matches the official library, parameters sorted, repeated ones included", () => {
    const url = "https://parley.example.com/v1/telephony/twilio/status?connection=car_1&call=call_2";
    const params = { CallSid: "CA1", CallStatus: "ringing", From: "+14155550100", To: "+14155550101", Caller: "+14155550100", AccountSid: "AC1" };
    expect(twilioSignature(TOKEN, url, params)).toBe(twilio.getExpectedTwilioSignature(TOKEN, url, params));
    const repeated = { StatusCallbackEvent: ["ringing", "answered", "initiated"], To: "+1" };
    expect(twilioSignature(TOKEN, url, repeated)).toBe(twilio.getExpectedTwilioSignature(TOKEN, url, repeated as any));
  });

  test("verifies with or without the default port, and fails on any change", () => {
    const url = "https://parley.example.com/v1/telephony/twilio/voice?connection=car_1";
    const params = { CallSid: "CA1", From: "+14155550100" };
    const signed = twilio.getExpectedTwilioSignature(TOKEN, "https://parley.example.com:443/v1/telephony/twilio/voice?connection=car_1", params);
    expect(verifyTwilio(TOKEN, signed, url, params)).toBe(true);
    expect(verifyTwilio(TOKEN, signed, url, { ...params, From: "+14155550199" })).toBe(false);
    expect(verifyTwilio(TOKEN, signed, `${url}x`, params)).toBe(false);
    expect(verifyTwilio(`${TOKEN.slice(1)}0`, signed, url, params)).toBe(false);
    expect(verifyTwilio(TOKEN, null, url, params)).toBe(false);
  });
});

describe("the Twilio frame codec", () => {
  test("reads start, media, dtmf, mark and stop as documented; refuses what is malformed", () => {
    const start = twilioCodec.parse(JSON.stringify({ event: "start", sequenceNumber: "1", start: { streamSid: "MZ1", callSid: "CA1", accountSid: "AC1", tracks: ["inbound"], mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 }, customParameters: { call_id: "call_1", token: "t" } }, streamSid: "MZ1" }));
    expect(start).toEqual({ type: "start", streamId: "MZ1", carrierCallId: "CA1", parameters: { call_id: "call_1", token: "t" }, encoding: "pcmu", sampleRate: 8000 });
    expect(twilioCodec.parse({ event: "media", media: { track: "inbound", payload: Buffer.from([1, 2, 3]).toString("base64") } })).toEqual({ type: "media", payload: new Uint8Array([1, 2, 3]) });
    expect(twilioCodec.parse({ event: "dtmf", dtmf: { track: "inbound_track", digit: "#" } })).toEqual({ type: "dtmf", digit: "#" });
    expect(twilioCodec.parse({ event: "mark", mark: { name: "m1" } })).toEqual({ type: "mark", name: "m1" });
    expect(twilioCodec.parse({ event: "stop", stop: {} })).toEqual({ type: "stop" });
    for (const bad of ["not json", "[1]", JSON.stringify({ event: "media", media: { payload: "***" } }), JSON.stringify({ event: "dtmf", dtmf: { digit: "x" } }), JSON.stringify({ event: "start", start: { streamSid: "MZ1", callSid: "CA1", mediaFormat: { encoding: "audio/l16", sampleRate: 16000 } } })]) {
      expect(twilioCodec.parse(bad)).toBeNull();
    }
    expect(JSON.parse(twilioCodec.clear("MZ1"))).toEqual({ event: "clear", streamSid: "MZ1" });
    expect(JSON.parse(twilioCodec.mark("MZ1", "m"))).toEqual({ event: "mark", streamSid: "MZ1", mark: { name: "m" } });
  });

  test("TwiML escapes what it carries", () => {
    expect(streamTwiml("wss://h/s", { call_id: 'a"<b>' })).toContain('<Parameter name="call_id" value="a&quot;&lt;b&gt;"/>');
    expect(dialTwiml("sip:bob@pbx.example.com")).toContain("<Sip>sip:bob@pbx.example.com</Sip>");
    expect(dialTwiml("+14155550100")).toContain("<Number>+14155550100</Number>");
  });
});

describe("frame cutter", () => {
  test("hands on whole frames as soon as they are complete, keeping the odd bytes for the next chunk", () => {
    const cutter = new FrameCutter(160);
    expect(cutter.cut(new Uint8Array(100).fill(1))).toEqual([]);
    const [first, second, ...rest] = cutter.cut(new Uint8Array(300).fill(2)); // 400 bytes: two frames and 80 left over
    expect(rest).toEqual([]);
    expect(first.length).toBe(160);
    expect([first[0], first[99], first[100], second[0]]).toEqual([1, 1, 2, 2]);
    const [third] = cutter.cut(new Uint8Array(80).fill(3));
    expect([third.length, third[0], third[79], third[80]]).toEqual([160, 2, 2, 3]);
    expect(cutter.cut(new Uint8Array(160 * 10)).length).toBe(10);
  });
});
