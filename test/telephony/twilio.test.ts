// Twilio end to end against a local server that speaks its REST API, webhooks and Media Streams
// (test/helpers/twilio-server.ts): whole calls with real audio, both directions, signed both ways.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import twilio from "twilio";
import { concatPcm } from "../../src/voice/media/frames.ts";
import { encodeMulaw } from "../../src/voice/media/g711.ts";
import { generateTone } from "../../src/voice/media/tones.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { loudest, spokenMulaw, tonesIn, waitUntil } from "../helpers/far-end.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { keyPresserAgent } from "../helpers/key-presser.ts";
import { FakeTwilio } from "../helpers/twilio-server.ts";

const s = serverWithUser("twilio");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 60_000;
const GREETING = "Hello, this is Acme. How can I help?";
const CUSTOMER = "+14155550188";

let fake: FakeTwilio;
let connectionId: string;
let agentId: string;
let agentNumber: string;
let question: Uint8Array;

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}


const events = async (callId: string) => (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data as any[];
const statusesOf = async (callId: string) => (await events(callId)).filter((e) => e.type === "status").map((e) => e.data.status);

beforeAll(async () => {
  fake = new FakeTwilio().start();
  question = await spokenMulaw("What are your opening hours?");
  agentId = (await post("/v1/agents", { name: "Reception", first_message: GREETING })).id;
  const connection = await post("/v1/telephony/carriers", {
    name: "Twilio (local)",
    kind: "twilio",
    settings: { api_base_url: fake.url, machine_detection: true, ring_timeout_seconds: 20 },
    credentials: { account_sid: fake.accountSid, auth_token: fake.authToken },
  });
  connectionId = connection.id;
  const bought = await post("/v1/phone-numbers/buy", { carrier_id: connectionId, number: "+14155550301" });
  agentNumber = bought.number;
  await post(`/v1/phone-numbers/${bought.id}/assign`, { agent_id: agentId });
});

afterAll(() => fake?.stop());

describe("a Twilio connection", () => {
  test("is refused when Twilio could not call back, or its credentials are malformed; secrets are masked", async () => {
    const credentials = { account_sid: fake.accountSid, auth_token: fake.authToken };
    // Twilio's real cloud cannot reach http://127.0.0.1.
    const real = await s.server.api.post("/v1/telephony/carriers", { name: "Twilio", kind: "twilio", credentials }, opts());
    expect(real.status).toBe(422);
    expect(real.body.errors[0].field).toBe("public_url");
    expect(real.body.detail).toContain("--public-url");
    const badSid = await s.server.api.post("/v1/telephony/carriers", { name: "T", kind: "twilio", settings: { api_base_url: fake.url }, credentials: { ...credentials, account_sid: "AC123" } }, opts());
    expect(badSid.body.errors[0].field).toBe("credentials.account_sid");
    const unknown = await s.server.api.post("/v1/telephony/carriers", { name: "T", kind: "twilio", settings: { api_base_url: fake.url, region: "ie1" }, credentials }, opts());
    expect(unknown.body.errors[0].field).toBe("settings.region");
    const shown = (await s.server.api.get(`/v1/telephony/carriers/${connectionId}`, opts())).body;
    expect(JSON.stringify(shown)).not.toContain(fake.authToken);
    expect(shown.callback_urls.voice_url).toBe(`${s.server.url}/v1/telephony/twilio/voice?connection=${connectionId}`);
  });

  test("numbers: search, buy (pointed at Parley), import one the account has, release each the right way", async () => {
    const found = await s.server.api.get(`/v1/phone-numbers/available?carrier_id=${connectionId}&area_code=415`, opts());
    expect(found.status).toBe(200);
    // +14155550301 is Parley's already (bought in setup): Twilio no longer offers it.
    expect(found.body.data.map((n: any) => n.number)).toEqual(["+14155550302"]);
    expect(found.body.data[0].region).toContain("San Francisco");
    expect(fake.owned.get(agentNumber)!.voice_url).toBe(`${s.server.url}/v1/telephony/twilio/voice?connection=${connectionId}`);
    expect(fake.owned.get(agentNumber)!.status_callback).toBe(`${s.server.url}/v1/telephony/twilio/status?connection=${connectionId}`);

    const gone = await s.server.api.post("/v1/phone-numbers/buy", { carrier_id: connectionId, number: "+14155550399" }, opts());
    expect(gone.status).toBe(409);
    expect(gone.body.code).toBe("number_unavailable");
    const byArea = await post("/v1/phone-numbers/buy", { carrier_id: connectionId, area_code: "212" });
    expect(byArea.number).toBe("+12125550303");

    fake.owned.set("+14155550377", { sid: "PN0000000000000000000000000000beef", phone_number: "+14155550377", voice_url: "https://example.com/old", status_callback: "" });
    const notOwned = await s.server.api.post("/v1/phone-numbers/import", { number: "+14155550378", carrier: connectionId }, opts());
    expect(notOwned.status).toBe(422);
    expect(notOwned.body.errors[0].field).toBe("number");
    const imported = await post("/v1/phone-numbers/import", { number: "+14155550377", carrier: connectionId });
    expect(fake.owned.get("+14155550377")!.voice_url).toContain(`/v1/telephony/twilio/voice?connection=${connectionId}`);

    // Releasing an imported number only stops it ringing Parley; a bought one goes back to Twilio.
    expect((await s.server.api.delete(`/v1/phone-numbers/${imported.id}`, opts())).status).toBe(204);
    expect(fake.owned.get("+14155550377")!.voice_url).toBe("");
    expect((await s.server.api.delete(`/v1/phone-numbers/${byArea.id}`, opts())).status).toBe(204);
    expect(fake.owned.has("+12125550303")).toBe(false);
    expect(fake.requests.some((r) => r.method === "DELETE" && r.path.endsWith(`/IncomingPhoneNumbers/PN0000000000000000000000000000beef.json`))).toBe(false);
  });

  test("Parley calls out: TwiML opens a signed stream, the greeting is heard, the callee is understood, keys arrive, the API hang-up ends it", async () => {
    fake.callee = "answer";
    const next = fake.nextCall();
    const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
    const call = await next;
    expect(call).toMatchObject({ to: CUSTOMER, from: agentNumber, direction: "outbound-api" });
    const create = fake.requests.find((r) => r.path.endsWith("/Calls.json"))!;
    expect(create.form.get("Twiml")).toContain(`<Stream url="ws://127.0.0.1:`);
    expect(create.form.getAll("StatusCallbackEvent")).toEqual(["initiated", "ringing", "answered", "completed"]);
    expect(create.form.get("MachineDetection")).toBe("Enable");
    expect(create.form.get("Timeout")).toBe("20");
    await waitUntil(() => call.socket !== null && call.playout.played.length > 0, "the stream and the greeting");
    // The stream's parameters name the call; the token is single-use and not the call id.
    expect(call.streamParameters.call_id).toBe(callId);
    expect(call.streamParameters.token.length).toBeGreaterThanOrEqual(32);

    // The callee waits for the greeting to end, then asks.
    const greeted = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "agent" && t.end_ms), 20_000);
    expect(greeted.transcript[0]).toMatchObject({ role: "agent", text: GREETING });
    await call.speak(question);
    const heard = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "caller"), 30_000);
    expect(heard.transcript.find((t: any) => t.role === "caller").text.toLowerCase()).toContain("hours");
    expect(loudest(call.playout.playedBytes())).toBeGreaterThan(1000);

    call.pressKey("7");
    await waitUntil(async () => (await events(callId)).some((e) => e.type === "dtmf" && e.data.digit === "7"), "the key");
    const carrierNote = (await events(callId)).find((e) => e.data?.carrier_call_id);
    expect(carrierNote?.data.carrier_call_id).toBe(call.sid);
    const amd = (await events(callId)).find((e) => e.type === "amd");
    expect(amd?.data.verdict).toBe("human");

    expect((await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts())).status).toBe(202);
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "agent_hangup", direction: "outbound", carrier: connectionId });
    await waitUntil(() => call.ended, "Twilio to end the call");
    expect(call.closeCode).toBe(1000);
    // The hang-up waited for Twilio to play what it had been sent (a mark after the last frame came back).
    expect(call.playout.marksEchoed.some((name) => name.startsWith("parley-drain"))).toBe(true);
    expect(await statusesOf(callId)).toEqual(["queued", "ringing", "in_progress", "completed"]);
    // Every status callback Twilio sent was accepted.
    expect(call.callbackAnswers.every((status) => status === 204)).toBe(true);
  }, CALL_TIMEOUT);

  test("a caller rings the agent's number: the voice webhook answers TwiML, the agent talks, the caller's hang-up ends it", async () => {
    const call = await fake.incoming(CUSTOMER, agentNumber);
    expect(call.twiml).toContain("<Connect><Stream");
    await waitUntil(() => call.playout.played.length > 0, "the greeting");
    const live = (await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data;
    expect(live).toHaveLength(1);
    const callId = live[0].id;
    expect(live[0]).toMatchObject({ status: "in_progress", to: agentNumber, from: CUSTOMER, carrier: connectionId });
    const greeted = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "agent" && t.end_ms), 20_000);
    // Every frame of the greeting reaches the caller (give or take the last one in flight).
    const greeting = greeted.transcript[0];
    await waitUntil(() => call.playout.played.length * 20 >= greeting.end_ms - greeting.start_ms - 40, "the whole greeting to play");
    expect(loudest(call.playout.playedBytes())).toBeGreaterThan(1000);
    await call.hangUp();
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "customer_hangup", direction: "inbound" });
  }, CALL_TIMEOUT);

  test("calls to numbers nobody answers are rejected in TwiML; no call is recorded", async () => {
    const spare = await post("/v1/phone-numbers/buy", { carrier_id: connectionId, number: "+14155550302" });
    const call = await fake.incoming(CUSTOMER, spare.number);
    expect(call.rejected).toBe("rejected");
    expect((await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data.filter((c: any) => c.to === spare.number)).toEqual([]);
  });

  test("a blind transfer redirects the call with <Dial>; the call ends transferred", async () => {
    const next = fake.nextCall();
    const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
    const call = await next;
    await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 10_000);
    expect((await s.server.api.post(`/v1/calls/${callId}/transfer`, { to: "+14155550999" }, opts())).status).toBe(202);
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "transferred", end_reason: "transferred" });
    expect(call.dialedTo).toBe("+14155550999");
    expect(ended.transferred_to).toBe("+14155550999");
  }, CALL_TIMEOUT);

  test("barge-in: the caller talking over the greeting makes Parley send `clear`, and the greeting stops where it was heard", async () => {
    const call = await fake.incoming(CUSTOMER, agentNumber);
    await waitUntil(() => call.playout.played.length >= 25, "half a second of greeting");
    await call.speak(question);
    expect(call.playout.clears).toBeGreaterThanOrEqual(1);
    const callId = call.streamParameters.call_id;
    const talked = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "caller"), 30_000);
    expect(talked.transcript[0]).toMatchObject({ role: "agent", interrupted: true });
    expect(talked.transcript[0].text.length).toBeLessThan(GREETING.length);
    await call.hangUp();
    await waitForCall(s.server.api, s.user.token, callId);
  }, CALL_TIMEOUT);

  test("busy, no answer and failed come from the status callbacks", async () => {
    for (const [callee, status] of [["busy", "busy"], ["no-answer", "no_answer"], ["fail", "failed"]] as const) {
      fake.callee = callee;
      const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
      expect(await waitForCall(s.server.api, s.user.token, callId)).toMatchObject({ status });
    }
    fake.callee = "answer";
  }, CALL_TIMEOUT);

  test("Twilio refusing the call (an unverified caller id) fails it with Twilio's reason", async () => {
    // A number Twilio does not have for this account: Twilio refuses the From.
    fake.owned.set("+14155550355", { sid: "PN00000000000000000000000000000355", phone_number: "+14155550355", voice_url: "", status_callback: "" });
    const own = await post("/v1/phone-numbers/import", { number: "+14155550355", carrier: connectionId });
    fake.owned.delete("+14155550355");
    const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: own.number })).id;
    const failed = await waitForCall(s.server.api, s.user.token, callId);
    expect(failed.status).toBe("failed");
    const reasons = JSON.stringify(await events(callId));
    expect(reasons).toContain("21210");
  }, CALL_TIMEOUT);

  test("keys the agent presses are played as tones down the stream (Media Streams carry no key command)", async () => {
    const presser = await keyPresserAgent(s.server.api, s.user.token, "1");
    try {
      const next = fake.nextCall();
      const callId = (await post("/v1/calls/outbound", { agent_id: presser.agentId, to: CUSTOMER, from: agentNumber })).id;
      const call = await next;
      await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "agent" && t.end_ms), 20_000);
      await call.speak(question);
      await waitUntil(() => tonesIn(call.playout.playedBytes()) === "1", "the key's tones to play", 30_000);
      expect((await events(callId)).find((e) => e.type === "tool_call")?.data).toMatchObject({ name: "send_dtmf", ok: true });
      await call.hangUp();
      await waitForCall(s.server.api, s.user.token, callId);
    } finally {
      presser.stop();
    }
  }, CALL_TIMEOUT);

  test("Twilio says a machine answered: the agent waits for the beep, leaves its message, and hangs up", async () => {
    const message = "Please call Acme back about your order.";
    const voicemail = await post("/v1/agents", { name: "Voicemail", first_message: GREETING, voicemail: { action: "leave_message", message } });
    fake.answeredBy = "machine_start";
    try {
      const next = fake.nextCall();
      const callId = (await post("/v1/calls/outbound", { agent_id: voicemail.id, to: CUSTOMER, from: agentNumber })).id;
      const call = await next;
      await waitUntil(() => call.socket !== null, "the stream");
      // The answering machine's greeting, a pause, then its beep and the silence of a recording machine.
      const beep = encodeMulaw(concatPcm([generateTone(1000, 500, { sampleRate: 8000, amplitudeDbfs: -8 }), new Int16Array(8000)]));
      await call.speak(await spokenMulaw("Hi, you have reached Sam. Please leave a message after the tone."));
      const before = call.playout.played.length;
      await call.speak(beep);
      const ended = await waitForCall(s.server.api, s.user.token, callId, undefined, 40_000);
      expect(ended).toMatchObject({ status: "completed", direction: "outbound" });
      const timeline = await events(callId);
      // Twilio's verdict decided it (before the greeting was long enough for Parley's own screening).
      expect(timeline.find((e) => e.type === "amd")?.data).toEqual({ verdict: "machine", reason: "the carrier's answering-machine detection" });
      expect(timeline.find((e) => e.type === "voicemail")?.data.trigger).toBe("beep");
      expect(ended.transcript.map((t: any) => t.text)).toEqual([message]);
      // The message went down the line after the beep.
      await waitUntil(() => call.ended, "Twilio to end the call");
      expect(loudest(Buffer.concat(call.playout.played.slice(before)))).toBeGreaterThan(1000);
    } finally {
      fake.answeredBy = "human";
    }
  }, CALL_TIMEOUT);

  test("a node with its own --node-url: the call's stream and its status callbacks go to the node, the number's webhooks to the public URL", async () => {
    // The same process reached by another name stands in for a node's own address behind a load balancer.
    const nodeUrl = s.server.url.replace("127.0.0.1", "localhost");
    s.server.ctx.config.nodeUrl = nodeUrl;
    try {
      fake.callee = "answer";
      const next = fake.nextCall();
      const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
      const call = await next;
      const create = fake.requests.filter((r) => r.path.endsWith("/Calls.json")).at(-1)!;
      expect(create.form.get("Twiml")).toContain(`<Stream url="${nodeUrl.replace("http", "ws")}/v1/telephony/twilio/stream">`);
      expect(create.form.get("StatusCallback")).toBe(`${nodeUrl}/v1/telephony/twilio/status?connection=${connectionId}&call=${callId}`);
      // Twilio signs what it requests: the stream and the callbacks, at the node's URL, are accepted.
      await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 10_000);
      expect((await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts())).status).toBe(202);
      await waitForCall(s.server.api, s.user.token, callId);
      await waitUntil(() => call.ended, "Twilio to end the call");
      expect(call.callbackAnswers.length).toBeGreaterThan(0);
      expect(call.callbackAnswers.every((status) => status === 204)).toBe(true);

      // A caller rings the number: its voice webhook stays the public URL (any node); the TwiML sends the stream to this node.
      expect(fake.owned.get(agentNumber)!.voice_url).toBe(`${s.server.url}/v1/telephony/twilio/voice?connection=${connectionId}`);
      const inbound = await fake.incoming(CUSTOMER, agentNumber);
      expect(inbound.twiml).toContain(`<Stream url="${nodeUrl.replace("http", "ws")}/v1/telephony/twilio/stream">`);
      await waitUntil(() => inbound.playout.played.length > 0, "the greeting over the node's stream");
      await inbound.hangUp();
      await waitForCall(s.server.api, s.user.token, inbound.streamParameters.call_id);
    } finally {
      s.server.ctx.config.nodeUrl = "";
    }
  }, CALL_TIMEOUT);

  test("bad signatures are 403 and change nothing: webhook, status callback, stream handshake; a stream without its token is closed", async () => {
    const voiceUrl = `${s.server.url}/v1/telephony/twilio/voice?connection=${connectionId}`;
    const params = { AccountSid: fake.accountSid, CallSid: "CA00000000000000000000000000000001", From: CUSTOMER, To: agentNumber, CallStatus: "ringing", Direction: "inbound" };
    const before = (await s.server.api.get("/v1/calls?limit=100", opts())).body.data.length;
    const forged = await fake.signedPost(voiceUrl, params, "0".repeat(32));
    expect(forged.status).toBe(403);
    expect(JSON.parse(forged.text).code).toBe("forbidden");
    // Signed for another URL (another connection's callback): refused too.
    const moved = await fetch(voiceUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": twilio.getExpectedTwilioSignature(fake.authToken, `${voiceUrl}x`, params) },
      body: new URLSearchParams(params).toString(),
    });
    expect(moved.status).toBe(403);
    // One changed parameter breaks the signature.
    const tampered = await fetch(voiceUrl, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", "x-twilio-signature": twilio.getExpectedTwilioSignature(fake.authToken, voiceUrl, params) },
      body: new URLSearchParams({ ...params, From: "+19999999999" }).toString(),
    });
    expect(tampered.status).toBe(403);
    expect((await s.server.api.get("/v1/calls?limit=100", opts())).body.data.length).toBe(before);

    // A forged "completed" for a live call leaves it live.
    const next = fake.nextCall();
    const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
    const call = await next;
    await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 10_000);
    const statusUrl = `${s.server.url}/v1/telephony/twilio/status?connection=${connectionId}&call=${callId}`;
    expect((await fake.signedPost(statusUrl, { ...call.params(), CallStatus: "completed" }, "f".repeat(32))).status).toBe(403);
    await Bun.sleep(200);
    expect((await s.server.api.get(`/v1/calls/${callId}`, opts())).body.status).toBe("in_progress");

    const streamUrl = `${s.server.url.replace("http", "ws")}/v1/telephony/twilio/stream`;
    const handshake = await fetch(streamUrl.replace("ws", "http"), {
      headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13", "x-twilio-signature": "bm90IGEgc2lnbmF0dXJl" },
    });
    expect(handshake.status).toBe(403);
    // Signed, but the start names the live call with a guessed token: closed 1008, the call untouched.
    const socket = new WebSocket(streamUrl, { headers: { "x-twilio-signature": twilio.getExpectedTwilioSignature(fake.authToken, streamUrl, {}) } } as any);
    const closed = new Promise<number>((resolve) => (socket.onclose = (event) => resolve(event.code)));
    socket.onopen = () => {
      socket.send(JSON.stringify({ event: "connected", protocol: "Call", version: "1.0.0" }));
      socket.send(JSON.stringify({ event: "start", streamSid: "MZ1", start: { streamSid: "MZ1", callSid: call.sid, customParameters: { call_id: callId, token: "guess" }, mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000 } } }));
    };
    expect(await closed).toBe(1008);
    expect((await s.server.api.get(`/v1/calls/${callId}`, opts())).body.status).toBe("in_progress");
    await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts());
    await waitForCall(s.server.api, s.user.token, callId);
  }, CALL_TIMEOUT);
});
