// SIP against a real peer: Debian's baresip, started by the test, plays the caller's or callee's
// speech from a WAV file and records what it hears; Parley's SIP trunk points at it.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { concatPcm } from "../../src/voice/media/frames.ts";
import { decodeWav, encodeWav } from "../../src/voice/media/wav-format.ts";
import { builtinStt, builtinTts } from "../../src/voice/speech/builtin/index.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { Baresip, baresipAvailable, freePort } from "../helpers/baresip.ts";
import { keyPresserAgent } from "../helpers/key-presser.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const s = serverWithUser("sip");
const tempDir = tempDirs("sip-audio-");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 60_000;
const NUMBER = "+14155550150";
const OTHER = "+14155550151";
const OFF = "+14155550152";
/** The number baresip answers to, as a PBX extension would. */
const CALLEE = "+14155550177";
const QUESTION = "What are your opening hours?";

let sipPort: number;
let agentId: string;
let connectionId: string | null = null;
let questionWav: string;
const peers: Baresip[] = [];

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function speechWav(text: string, path: string): Promise<string> {
  const chunks: Int16Array[] = [];
  for await (const chunk of builtinTts().synthesize(text, { voice: "slt", speed: 1, sampleRate: 8000 })) chunks.push(chunk);
  // A second of silence first: the greeting plays while the caller waits, as people do.
  const pcm = concatPcm([new Int16Array(8000 * 4), concatPcm(chunks), new Int16Array(8000 * 30)]);
  writeFileSync(path, encodeWav(pcm, { sampleRate: 8000, channels: 1 }));
  return path;
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

async function peer(options: Parameters<typeof Baresip.start>[0]): Promise<Baresip> {
  const phone = await Baresip.start(options);
  peers.push(phone);
  return phone;
}

afterEach(async () => {
  for (const phone of peers.splice(0)) await phone.stop();
});

beforeAll(async () => {
  if (!baresipAvailable) return;
  const dir = tempDir();
  questionWav = await speechWav(QUESTION, join(dir, "question.wav"));
  sipPort = await freePort("udp");
  const agent = await post("/v1/agents", { name: "Reception", first_message: "Hello, this is Acme. How can I help?" });
  agentId = agent.id;
});

/** Points the lab trunk at this baresip (created on first use; a change rebuilds the carrier on the same port). */
async function trunkTo(phone: Baresip, extra: Record<string, unknown> = {}): Promise<void> {
  const settings = { trunk: `127.0.0.1:${phone.sipPort}`, listen_host: "127.0.0.1", listen_port: sipPort, rtp_port_min: 40000, rtp_port_max: 40999, ring_timeout_seconds: 45, ...extra };
  if (!connectionId) {
    connectionId = (await post("/v1/telephony/carriers", { name: "Lab PBX", kind: "sip", settings })).id;
    for (const number of [NUMBER, OTHER, OFF]) {
      const imported = await post("/v1/phone-numbers/import", { number, carrier: connectionId });
      if (number !== OTHER) await post(`/v1/phone-numbers/${imported.id}/assign`, { agent_id: agentId });
      if (number === OFF) await s.server.api.patch(`/v1/phone-numbers/${imported.id}`, { inbound: { enabled: false } }, opts());
    }
  } else {
    const res = await s.server.api.patch(`/v1/telephony/carriers/${connectionId}`, { settings }, { token: s.user.token });
    expect(res.status).toBe(200);
  }
  await waitUntil(async () => (await s.server.api.get(`/v1/telephony/carriers/${connectionId}`, opts())).body.status?.state === "listening", "the trunk to listen");
}

async function waitUntil(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

async function heardRms(phone: Baresip, fromMs: number, toMs: number): Promise<number> {
  await waitUntil(() => phone.recordings().heard.length > 0, "baresip's recording");
  await Bun.sleep(300);
  const [recording] = phone.recordings().heard;
  const wav = decodeWav(new Uint8Array(await Bun.file(recording).arrayBuffer()));
  return rms(wav.samples.subarray(Math.round((fromMs / 1000) * 8000), Math.round((toMs / 1000) * 8000)));
}

/** What the offline recogniser makes of what baresip heard between two moments of the call. */
async function heardWords(phone: Baresip, fromMs: number, toMs: number): Promise<string> {
  const [recording] = phone.recordings().heard;
  const wav = decodeWav(new Uint8Array(await Bun.file(recording).arrayBuffer()));
  const session = builtinStt().start({ language: "en-US", sampleRate: 8000 });
  session.write(wav.samples.slice(Math.round((fromMs / 1000) * 8000), Math.round((toMs / 1000) * 8000)));
  return (await session.finish()).text.toLowerCase();
}

async function placeCall(to: string): Promise<string> {
  return (await post("/v1/calls/outbound", { agent_id: agentId, to, from: NUMBER })).id;
}

describe.skipIf(!baresipAvailable)("a SIP trunk to baresip", () => {
  test("baresip calls an agent's number: the greeting is heard, the caller is transcribed, keys arrive, BYE from baresip ends it", async () => {
    const phone = await peer({ answer: "manual", audioIn: questionWav });
    await trunkTo(phone);
    phone.command("dial", `sip:${NUMBER}@127.0.0.1:${sipPort}`);
    await phone.waitFor("CALL_ESTABLISHED");
    const live = (await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data;
    expect(live).toHaveLength(1);
    const callId = live[0].id;
    expect(live[0]).toMatchObject({ status: "in_progress", to: NUMBER, carrier: connectionId });
    const heard = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "caller"), 30_000);
    expect(heard.transcript[0]).toMatchObject({ role: "agent", text: "Hello, this is Acme. How can I help?" });
    // The offline recogniser heard baresip's WAV over RTP.
    const caller = heard.transcript.find((t: any) => t.role === "caller");
    expect(caller.text.toLowerCase()).toContain("hours");
    // RFC 4733 from baresip.
    phone.command("sndcode", "5");
    await waitUntil(async () => (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data.some((e: any) => e.type === "dtmf" && e.data.digit === "5"), "the key");
    phone.command("hangup");
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "customer_hangup", direction: "inbound", to: NUMBER, carrier: connectionId });
    await phone.waitFor("CALL_CLOSED");
    // Everything baresip sent was its RTP or its RTCP (lone APP packets included): nothing counted foreign.
    const media = (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data.find((e: any) => e.type === "media").data;
    expect(media.rtp.foreign).toBe(0);
    // Loopback UDP on a loaded 2-core CI box has dropped a single datagram: allow 1 %, not a stream's worth.
    expect(media.rtp.lost).toBeLessThanOrEqual(Math.ceil(media.rtp.received / 100));
    // What baresip heard while the greeting played is speech, not silence.
    const greeting = ended.transcript[0];
    expect(await heardRms(phone, greeting.start_ms + 100, greeting.end_ms - 100)).toBeGreaterThan(300);
  }, CALL_TIMEOUT);

  test("keys baresip presses share its audio's sequence numbers: counted received, nothing lost in the call's media report or in Parley's RTCP", async () => {
    const phone = await peer({ answer: "manual" });
    await trunkTo(phone);
    phone.command("dial", `sip:${NUMBER}@127.0.0.1:${sipPort}`);
    await phone.waitFor("CALL_ESTABLISHED");
    const callId = (await s.server.api.get("/v1/calls?direction=inbound&status=in_progress", opts())).body.data[0].id;
    const keys = async () => (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data.filter((e: any) => e.type === "dtmf").map((e: any) => e.data.digit).join("");
    for (const [i, digit] of ["1", "2", "3", "4"].entries()) {
      phone.command("sndcode", digit);
      await waitUntil(async () => (await keys()) === "1234".slice(0, i + 1), `key ${digit}`);
    }
    // Parley's RTCP reports come 2.5-7.5 s apart: one is sure to cover the keys before baresip hangs up.
    await Bun.sleep(8000);
    phone.command("hangup");
    await waitForCall(s.server.api, s.user.token, callId);
    await phone.waitFor("CALL_CLOSED");
    const media = (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data.find((e: any) => e.type === "media").data;
    expect(media.rtp).toMatchObject({ lost: 0, late: 0, foreign: 0 });
    await waitUntil(() => phone.rtpSummary() !== null, "baresip's RTP summary");
    const baresip = phone.rtpSummary()!;
    // Every packet baresip sent, keys included, was counted received (its last one or two may still be on the way as its BYE ends the call).
    expect(media.rtp.received).toBeLessThanOrEqual(baresip.transmit.packets);
    expect(media.rtp.received).toBeGreaterThanOrEqual(baresip.transmit.packets - 2);
    // What Parley's receiver reports told baresip about its stream.
    expect(media.rtcp.sent).toBeGreaterThan(0);
    expect(baresip.transmit.lost).toBe(0);
  }, CALL_TIMEOUT);

  test("Parley calls baresip: ringing, answered, the greeting heard there, and the agent's hang-up is a BYE", async () => {
    const phone = await peer({ answer: "auto", user: CALLEE });
    await trunkTo(phone);
    const callId = await placeCall(CALLEE);
    const established = await phone.waitFor("CALL_ESTABLISHED");
    // Caller ID: the agent's number.
    expect(established.peeruri).toContain(NUMBER);
    const talking = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "agent" && t.end_ms), 20_000);
    const greeting = talking.transcript[0];
    expect((await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts())).status).toBe(202);
    await phone.waitFor("CALL_CLOSED");
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "agent_hangup", direction: "outbound" });
    const events = (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data;
    expect(events.filter((e: any) => e.type === "status").map((e: any) => e.data.status)).toEqual(["queued", "ringing", "in_progress", "completed"]);
    expect(await heardRms(phone, greeting.start_ms + 100, greeting.end_ms - 100)).toBeGreaterThan(300);
    // And it is the greeting: recognised from baresip's recording (the offline recogniser knows "help", not "Acme").
    expect(await heardWords(phone, greeting.start_ms, greeting.end_ms + 300)).toContain("help");
  }, CALL_TIMEOUT);

  test("keys the agent presses reach baresip as RFC 4733 events; the call's media report carries both sides' RTCP", async () => {
    // A language-model agent that presses 1 once the callee has said something (the send_dtmf tool).
    const presser = await keyPresserAgent(s.server.api, s.user.token, "1");
    try {
      const phone = await peer({ answer: "auto", user: CALLEE, audioIn: questionWav });
      await trunkTo(phone);
      const callId = (await post("/v1/calls/outbound", { agent_id: presser.agentId, to: CALLEE, from: NUMBER })).id;
      const key = await phone.waitFor("CALL_DTMF_START", 40_000);
      expect(key.param).toBe("1");
      // Long enough for baresip's first RTCP report (every 5 s), then the agent hangs up.
      await Bun.sleep(6_000);
      expect((await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts())).status).toBe(202);
      await waitForCall(s.server.api, s.user.token, callId);
      const events = (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data;
      expect(events.find((e: any) => e.type === "tool_call")?.data).toMatchObject({ name: "send_dtmf", ok: true });
      const media = events.find((e: any) => e.type === "media")?.data;
      expect(media.rtp.sent).toBeGreaterThan(250);
      expect(media.rtp.received).toBeGreaterThan(250);
      expect(media.rtp.lost).toBeLessThanOrEqual(Math.ceil(media.rtp.received / 100)); // see above: 1 % at most
      expect(media.rtcp.sent).toBeGreaterThan(0);
      expect(media.rtcp.received).toBeGreaterThan(0);
      // baresip's receiver report on our stream: (next to) nothing lost over loopback.
      expect(media.rtcp.far_end.cumulative_lost).toBeLessThanOrEqual(Math.ceil(media.rtp.sent / 100));
    } finally {
      presser.stop();
    }
  }, CALL_TIMEOUT);

  test("a blind transfer is a REFER baresip follows; the call ends transferred", async () => {
    const phone = await peer({ answer: "auto", user: CALLEE });
    await trunkTo(phone);
    const callId = await placeCall(CALLEE);
    await phone.waitFor("CALL_ESTABLISHED");
    await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 10_000);
    expect((await s.server.api.post(`/v1/calls/${callId}/transfer`, { to: "+14155550999" }, opts())).status).toBe(202);
    const transfer = await phone.waitFor("TRANSFER");
    expect(transfer.param).toContain("sip:+14155550999@127.0.0.1");
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "transferred", end_reason: "transferred" });
  }, CALL_TIMEOUT);

  test("busy (486 from baresip) and no answer (CANCEL after the ring timeout)", async () => {
    const phone = await peer({ answer: "manual", user: CALLEE });
    await trunkTo(phone, { ring_timeout_seconds: 5 });
    const busy = await placeCall(CALLEE);
    await phone.waitFor("CALL_INCOMING");
    phone.command("hangup");
    expect(await waitForCall(s.server.api, s.user.token, busy)).toMatchObject({ status: "busy", end_reason: "busy" });

    const from = phone.events.length;
    const unanswered = await placeCall(CALLEE);
    await phone.waitFor("CALL_INCOMING", 10_000, from);
    expect(await waitForCall(s.server.api, s.user.token, unanswered, undefined, 20_000)).toMatchObject({ status: "no_answer", end_reason: "no_answer" });
    // Parley's CANCEL reached baresip: its ringing call is gone too.
    await phone.waitFor("CALL_CLOSED", 5_000, from);
  }, CALL_TIMEOUT);

  test("numbers nobody answers are refused: 404 for an unknown one, 480 for one without an agent or switched off", async () => {
    const phone = await peer({ answer: "manual" });
    await trunkTo(phone);
    const closedWith = async (number: string) => {
      const from = phone.events.length;
      phone.command("dial", `sip:${number}@127.0.0.1:${sipPort}`);
      return (await phone.waitFor("CALL_CLOSED", 10_000, from)).param ?? "";
    };
    expect(await closedWith("+19995550100")).toContain("404");
    expect(await closedWith(OTHER)).toContain("480");
    expect(await closedWith(OFF)).toContain("480");
    expect((await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data.filter((c: any) => c.to !== NUMBER)).toEqual([]);
  }, CALL_TIMEOUT);
});
