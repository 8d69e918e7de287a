// Added latency of the carrier legs. Every 20 ms frame is stamped with a number and timed from the far
// end's socket to the conversation loop's audio handler (in), and from the loop's sendAudio to the far
// end's socket (out). Legs measured: the SIP trunk (RTP over loopback UDP, answered by a scripted
// trunk), and the WebSocket media leg through Parley's own HTTP server (Twilio and Telnyx, answered by
// the local protocol servers in test/helpers, signed as those carriers sign). The simulated carrier's
// callee lives in the process and hands frames over by a function call, so a leg's latency measured
// here is what it adds over the simulated carrier.
// Usage: bun scripts/bench/leg-latency.ts [--calls 1,50] [--seconds 10]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { createCarrierConnection } from "../../src/modules/carriers/service.ts";
import { buyNumber, importNumber } from "../../src/modules/phone-numbers/service.ts";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import { parseRtp, serializeRtp } from "../../src/telephony/rtp/packet.ts";
import type { SipRequest } from "../../src/telephony/sip/message.ts";
import type { CallLeg } from "../../src/telephony/types.ts";
import { mediaClock } from "../../src/voice/media/media-clock.ts";
import { reply, SipPeer, sdpOffer } from "../../test/helpers/sip-peer.ts";
import type { FarEndPlayout } from "../../test/helpers/far-end.ts";
import { FakeTelnyx } from "../../test/helpers/telnyx-server.ts";
import { FakeTwilio } from "../../test/helpers/twilio-server.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { calls: { type: "string", default: "1,50" }, seconds: { type: "string", default: "10" } } });
const LEVELS = values.calls.split(",").map(Number);
const SECONDS = Number(values.seconds);
const WARM_UP_MS = 1000;

/** Frames carry their number in bytes 1–3 behind a marker byte; µ-law silence elsewhere. */
class Probe {
  private readonly sentAt = new Map<number, number>();
  private next = 0;
  readonly samples: number[] = [];
  recording = false;

  stamp(): Uint8Array {
    const n = ++this.next & 0xffffff;
    const frame = new Uint8Array(160).fill(0xff);
    frame.set([0x5a, n >> 16, (n >> 8) & 0xff, n & 0xff]);
    this.sentAt.set(n, performance.now());
    return frame;
  }

  arrived(frame: Uint8Array): void {
    if (frame.length < 4 || frame[0] !== 0x5a) return;
    const n = (frame[1] << 16) | (frame[2] << 8) | frame[3];
    const at = this.sentAt.get(n);
    if (at === undefined) return;
    this.sentAt.delete(n);
    if (this.recording) this.samples.push(performance.now() - at);
  }
}

/** One measured call: the far end sends `farSend` every 20 ms; Parley's side sends on the media clock. */
interface Measured {
  leg: CallLeg;
  farSend: (frame: Uint8Array) => void;
  inbound: Probe;
  outbound: Probe;
  close(): void;
}

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-latency-"));
const ctx = createParley({ config: buildConfig({ dataDir, host: "127.0.0.1", port: "0", logLevel: "error", allowPrivateUrls: "true" }), logger: createLogger("error") });
const server = startServer(ctx);
const { workspace } = createUser(ctx, { email: "bench@example.test", passwordHash: "unused", name: "Bench" });
let calls = 0;

function answered(leg: CallLeg): Promise<void> {
  return new Promise((resolve, reject) => {
    leg.onEvent((event) => {
      if (event.type === "answered") resolve();
      if (event.type === "ended") reject(new Error(`the call ended: ${event.reason} ${event.detail ?? ""}`));
    });
  });
}

function probes(leg: CallLeg): { inbound: Probe; outbound: Probe } {
  const inbound = new Probe();
  const outbound = new Probe();
  leg.onAudio((frame) => inbound.arrived(frame));
  return { inbound, outbound };
}

// ---------------------------------------------------------------- SIP: a scripted trunk on loopback

const rtpSockets = new Map<string, { socket: Bun.udp.Socket<"buffer">; onFrame: (payload: Uint8Array) => void; parley: { port: number } }>();
const trunk = await SipPeer.start("127.0.0.1", (peer, request: SipRequest, from) => void answerSip(peer, request, from));
async function answerSip(peer: SipPeer, request: SipRequest, from: { address: string; port: number }) {
  const callId = request.headers.get("call-id")!;
  if (request.method === "INVITE") {
    const parleyPort = Number(/m=audio (\d+)/.exec(request.body)?.[1]);
    const entry = { socket: null as unknown as Bun.udp.Socket<"buffer">, onFrame: (_: Uint8Array) => {}, parley: { port: parleyPort } };
    entry.socket = await Bun.udpSocket({ hostname: "127.0.0.1", socket: { data: (_s, data) => entry.onFrame(parseRtp(data)?.payload ?? new Uint8Array(0)) } });
    rtpSockets.set(callId, entry);
    const sdp = sdpOffer(entry.socket.port, [{ pt: 0, name: "PCMU" }, { pt: 101, name: "telephone-event" }]);
    peer.send(reply(request, 200, "OK", [`Contact: <sip:far@127.0.0.1:${peer.port}>`, "Content-Type: application/sdp"], sdp, "far"), from.port, from.address);
  } else if (request.method === "BYE") {
    peer.send(reply(request, 200, "OK"), from.port, from.address);
    rtpSockets.get(callId)?.socket.close();
    rtpSockets.delete(callId);
  }
}
const sipConnection = await createCarrierConnection(ctx, ctx.carriers, workspace.id, {
  name: "bench trunk",
  kind: "sip",
  settings: { trunk: `127.0.0.1:${trunk.port}`, listen_host: "127.0.0.1", listen_port: 0, rtp_port_min: 30000, rtp_port_max: 39998, keepalive_seconds: 0 },
});
const sipNumber = await importNumber(ctx, ctx.carriers, workspace.id, { number: "+14155550100", carrier: sipConnection.id });

async function sipCall(): Promise<Measured> {
  const carrier = ctx.carriers.carrier(workspace.id, sipConnection.id)!;
  const leg = carrier.dial({ callId: `call_bench${++calls}`, from: sipNumber.number, to: "+12125550150", options: {} });
  await answered(leg);
  const entry = [...rtpSockets.values()].at(-1)!;
  const { inbound, outbound } = probes(leg);
  entry.onFrame = (payload) => outbound.arrived(payload);
  const ssrc = (Math.random() * 0xffffffff) >>> 0;
  let sequence = 0;
  let timestamp = 0;
  const farSend = (payload: Uint8Array) => {
    entry.socket.send(serializeRtp({ payloadType: 0, marker: false, payload, sequence: ++sequence & 0xffff, timestamp: (timestamp += 160) >>> 0, ssrc }), entry.parley.port, "127.0.0.1");
  };
  return { leg, farSend, inbound, outbound, close: () => leg.hangup() };
}

// ---------------------------------------------------------------- Twilio and Telnyx: local protocol servers

const twilio = new FakeTwilio().start();
const twilioConnection = await createCarrierConnection(ctx, ctx.carriers, workspace.id, {
  name: "bench Twilio",
  kind: "twilio",
  settings: { api_base_url: twilio.url },
  credentials: { account_sid: twilio.accountSid, auth_token: twilio.authToken },
});
const twilioNumber = await buyNumber(ctx, ctx.carriers, workspace.id, { carrier_id: twilioConnection.id, number: "+14155550301" });

const telnyx = new FakeTelnyx().start();
const telnyxConnection = await createCarrierConnection(ctx, ctx.carriers, workspace.id, {
  name: "bench Telnyx",
  kind: "telnyx",
  settings: { call_control_app_id: telnyx.appId, api_base_url: telnyx.url },
  credentials: { api_key: telnyx.apiKey, public_key: telnyx.publicKey },
});
const telnyxNumber = await buyNumber(ctx, ctx.carriers, workspace.id, { carrier_id: telnyxConnection.id, number: "+14155550401" });

/** The far end of a cloud carrier's call, as the local protocol servers hold it. */
interface FarCall {
  playout: FarEndPlayout;
  send(message: unknown): void;
}

/** A call on a WebSocket media leg: `media` writes one frame in the carrier's own JSON. */
async function streamCall<C extends FarCall>(connectionId: string, from: string, next: () => Promise<C>, media: (call: C, chunk: number, payload: string) => unknown): Promise<Measured> {
  const carrier = ctx.carriers.carrier(workspace.id, connectionId)!;
  const far = next();
  const leg = carrier.dial({ callId: `call_bench${++calls}`, from, to: "+12125550150", options: {} });
  await answered(leg);
  const call = await far;
  const { inbound, outbound } = probes(leg);
  call.playout.onArrival = (payload) => outbound.arrived(payload);
  let chunk = 0;
  const farSend = (payload: Uint8Array) => call.send(media(call, ++chunk, Buffer.from(payload).toString("base64")));
  return { leg, farSend, inbound, outbound, close: () => leg.hangup() };
}

const twilioCall = () =>
  streamCall(twilioConnection.id, twilioNumber.number, () => twilio.nextCall(), (call, chunk, payload) => ({
    event: "media",
    sequenceNumber: String(chunk + 2),
    media: { track: "inbound", chunk: String(chunk), timestamp: String(chunk * 20), payload },
    streamSid: call.streamSid,
  }));

const telnyxCall = () =>
  streamCall(telnyxConnection.id, telnyxNumber.number, () => telnyx.nextCall(), (call, chunk, payload) => ({
    event: "media",
    sequence_number: String(chunk + 2),
    media: { track: "inbound", chunk: String(chunk), timestamp: String(chunk * 20), payload },
    stream_id: call.streamId,
  }));

// ---------------------------------------------------------------- the measurement

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–").padStart(6);

async function measure(name: string, open: () => Promise<Measured>, count: number): Promise<number> {
  const live: Measured[] = [];
  for (let i = 0; i < count; i++) live.push(await open());
  // Both ends send a stamped frame every 20 ms: the far end on its own timer, Parley on the media clock as a call session does.
  const farTimer = setInterval(() => {
    for (const call of live) call.farSend(call.inbound.stamp());
  }, 20);
  const stopClock = mediaClock.subscribe(() => {
    for (const call of live) call.leg.sendAudio(call.outbound.stamp());
  });
  await Bun.sleep(WARM_UP_MS);
  for (const call of live) call.inbound.recording = call.outbound.recording = true;
  await Bun.sleep(SECONDS * 1000);
  clearInterval(farTimer);
  stopClock();
  for (const call of live) call.close();
  const inbound = live.flatMap((c) => c.inbound.samples).sort((a, b) => a - b);
  const outbound = live.flatMap((c) => c.outbound.samples).sort((a, b) => a - b);
  console.log(
    `   ${name.padEnd(16)} ${String(count).padStart(5)}   ${ms(percentile(inbound, 50))} ${ms(percentile(inbound, 95))} ${ms(percentile(inbound, 99))}   ${ms(percentile(outbound, 50))} ${ms(percentile(outbound, 95))} ${ms(percentile(outbound, 99))}   ${String(inbound.length + outbound.length).padStart(8)}`,
  );
  await Bun.sleep(500);
  return Math.max(percentile(inbound, 95), percentile(outbound, 95));
}

console.log(`Latency a carrier leg adds to each 20 ms frame (${SECONDS} s per row after ${WARM_UP_MS} ms warm-up; the simulated carrier hands frames over in-process: 0 ms)`);
console.log("   leg              calls    in: p50    p95    p99 ms   out: p50    p95    p99 ms     frames");
let worst = 0;
for (const count of LEVELS) {
  worst = Math.max(worst, await measure("SIP (RTP/UDP)", sipCall, count));
  worst = Math.max(worst, await measure("Twilio (WS)", twilioCall, count));
  worst = Math.max(worst, await measure("Telnyx (WS)", telnyxCall, count));
}
console.log(`   → worst p95 added latency: ${worst.toFixed(2)} ms (goal < 5 ms)`);
twilio.stop();
telnyx.stop();
trunk.close();
await server.stop();
closeParley(ctx);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
