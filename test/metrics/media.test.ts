// Callers' media as the metrics count it: RTP from a SIP trunk with a gap and a straggler (lost and
// late), and a browser's WebSocket audio held back and then delivered in a burst, as TCP does (late).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { serializeRtp } from "../../src/telephony/rtp/packet.ts";
import { FramePacing } from "../../src/telephony/frame-pacing.ts";
import type { SipRequest } from "../../src/telephony/sip/message.ts";
import { freePort } from "../helpers/baresip.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { scrape, valueOf, type Sample } from "../helpers/prometheus.ts";
import { reply, sdpOffer, SipPeer } from "../helpers/sip-peer.ts";

const s = serverWithUser("media-metrics", { settings: { metricsListen: "127.0.0.1:0" } });
const opts = () => ({ token: s.user.token });
const metrics = () => scrape(s.server.metricsUrl!);
const frames = (samples: Sample[], transport: string) => ({
  received: valueOf(samples, "parley_media_frames_received_total", { transport }),
  lost: valueOf(samples, "parley_media_frames_lost_total", { transport }),
  late: valueOf(samples, "parley_media_frames_late_total", { transport }),
});
const minus = (a: ReturnType<typeof frames>, b: ReturnType<typeof frames>) => ({ received: a.received - b.received, lost: a.lost - b.lost, late: a.late - b.late });

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

let agentId: string;
beforeAll(async () => {
  agentId = (await post("/v1/agents", { name: "Listener", first_message: "Hello." })).id;
});

describe("FramePacing", () => {
  const feed = (arrivals: number[]) => {
    const pacing = new FramePacing();
    for (const at of arrivals) pacing.frame(at);
    return pacing.counts();
  };
  const paced = (from: number, count: number, start = from * 20) => Array.from({ length: count }, (_, i) => start + i * 20);

  test("frames at their pace, early or a little late, are on time", () => {
    expect(feed(paced(0, 100).map((at, i) => at + (i % 3) * 15))).toEqual({ transport: "websocket", received: 100, lost: 0, late: 0 });
  });

  test("a stall delivered in a burst: the frames more than 200 ms behind their place are late, and the stream is on time again after", () => {
    // Frames 10..59 are held back until frame 60 is due (1.2 s), then come at once.
    const arrivals = [...paced(0, 10), ...Array(50).fill(1200), ...paced(60, 40)];
    expect(feed(arrivals)).toEqual({ transport: "websocket", received: 100, lost: 0, late: 40 });
  });

  test("a sender that pauses and resumes at its pace costs one second of late frames, not the rest of the call", () => {
    const arrivals = [...paced(0, 50), ...paced(50, 500, 1000 + 50 * 20)];
    expect(feed(arrivals).late).toBe(50);
  });

  test("a sender's clock 0.1 % slow is never late", () => {
    expect(feed(Array.from({ length: 90_000 }, (_, i) => i * 20.02)).late).toBe(0);
  });
});

describe("RTP from a SIP trunk", () => {
  let trunk: SipPeer;
  let media: Bun.udp.Socket<"buffer">;

  beforeAll(async () => {
    media = await Bun.udpSocket({ hostname: "127.0.0.1", port: 0 });
    // The trunk answers every INVITE with audio to `media`, and every BYE.
    trunk = await SipPeer.start("127.0.0.1", (peer, request: SipRequest, from) => {
      if (request.method === "INVITE") peer.send(reply(request, 200, "OK", ["Contact: <sip:callee@127.0.0.1>", "Content-Type: application/sdp"], sdpOffer(media.port, [{ pt: 0, name: "PCMU" }]), "callee1"), from.port);
      if (request.method === "BYE") peer.send(reply(request, 200, "OK"), from.port);
    });
    const sipPort = await freePort("udp");
    const connection = await post("/v1/telephony/carriers", { name: "Metrics trunk", kind: "sip", settings: { trunk: `127.0.0.1:${trunk.port}`, listen_host: "127.0.0.1", listen_port: sipPort, rtp_port_min: 43000, rtp_port_max: 43999, keepalive_seconds: 0 } });
    const number = await post("/v1/phone-numbers/import", { number: "+14155550177", carrier: connection.id });
    await post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agentId });
    for (const deadline = Date.now() + 5_000; (await s.server.api.get(`/v1/telephony/carriers/${connection.id}`, opts())).body.status.state !== "listening"; await Bun.sleep(50)) {
      if (Date.now() > deadline) throw new Error("the trunk never listened");
    }
  });
  afterAll(() => {
    trunk?.close();
    media?.close();
  });

  test("a gap of three packets is lost, a packet after its frame was given up is late, both while the call lives and after", async () => {
    const before = frames(await metrics(), "rtp");
    const call = await post("/v1/calls/outbound", { agent_id: agentId, to: "+14155550199", from: "+14155550177" });
    await waitForCall(s.server.api, s.user.token, call.id, (c) => c.status === "in_progress", 10_000);
    const offer = trunk.received.map((r) => r.message).find((m) => m.type === "request" && m.method === "INVITE" && m.body.includes("m=audio"))!;
    const rtpPort = Number(/^m=audio (\d+)/m.exec(offer.body)![1]);
    const packet = (sequence: number) => serializeRtp({ payloadType: 0, marker: false, sequence, timestamp: sequence * 160, ssrc: 0x1234, payload: new Uint8Array(160).fill(0xff) });
    for (let sequence = 1000; sequence < 1050; sequence++) {
      if (sequence < 1020 || sequence > 1022) media.send(packet(sequence), rtpPort, "127.0.0.1");
      await Bun.sleep(20);
    }
    await Bun.sleep(200);
    media.send(packet(1021), rtpPort, "127.0.0.1"); // long after the gap was given up
    await Bun.sleep(100);
    const live = minus(frames(await metrics(), "rtp"), before);
    expect(live).toEqual({ received: 48, lost: 3, late: 1 });
    await post(`/v1/calls/${call.id}/hangup`);
    await waitForCall(s.server.api, s.user.token, call.id, (c) => c.status === "completed", 10_000);
    // Ended, its counts stay (the counters never go back).
    expect(minus(frames(await metrics(), "rtp"), before)).toEqual(live);
  }, 30_000);
});

describe("WebSocket audio from a browser", () => {
  test("frames held back by the connection and delivered in a burst are late; the count stays once the call ends", async () => {
    const before = frames(await metrics(), "websocket");
    const issued = await post("/v1/realtime/token", { agent_id: agentId });
    const socket = new WebSocket(`${issued.url}&rate=16000`);
    socket.binaryType = "arraybuffer";
    const session = new Promise<string>((resolve, reject) => {
      socket.onmessage = (message) => {
        if (typeof message.data === "string" && JSON.parse(message.data).type === "session") resolve(JSON.parse(message.data).call_id);
      };
      socket.onerror = () => reject(new Error("the session socket failed"));
    });
    const callId = await session;
    const frame = new Uint8Array(640); // 20 ms of 16 kHz PCM16
    const start = performance.now();
    const sendAt = async (index: number) => {
      await Bun.sleep(Math.max(0, start + index * 20 - performance.now()));
      socket.send(frame);
    };
    for (let i = 0; i < 10; i++) await sendAt(i);
    // Frames 10..59 are held back a second (a stalled TCP connection), then go at once with frame 60's time.
    await sendAt(60);
    for (let i = 1; i < 50; i++) socket.send(frame);
    for (let i = 61; i < 70; i++) await sendAt(i);
    await Bun.sleep(100);
    const live = minus(frames(await metrics(), "websocket"), before);
    expect(live.received).toBe(69);
    expect(live.lost).toBe(0);
    // Of the 50 held frames, 10..49 were more than 200 ms behind their place (timers on a busy box move
    // the line by a frame or two); the 19 sent at their time never are.
    expect(live.late).toBeGreaterThanOrEqual(35);
    expect(live.late).toBeLessThanOrEqual(50);
    socket.send(JSON.stringify({ type: "hangup" }));
    await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "completed", 10_000);
    expect(minus(frames(await metrics(), "websocket"), before)).toEqual(live);
    socket.close();
  }, 30_000);
});
