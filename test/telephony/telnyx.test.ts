// Telnyx end to end against a local server that speaks Call Control, API v2 numbers, Ed25519-signed
// events and media streaming (test/helpers/telnyx-server.ts): whole calls with real audio.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { waitForCall } from "../helpers/call-api.ts";
import { loudest, spokenMulaw, waitUntil } from "../helpers/far-end.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { keyPresserAgent } from "../helpers/key-presser.ts";
import { FakeTelnyx } from "../helpers/telnyx-server.ts";

const s = serverWithUser("telnyx");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 60_000;
const GREETING = "Hello, this is Acme. How can I help?";
const CUSTOMER = "+14155550288";

let fake: FakeTelnyx;
let connectionId: string;
let agentId: string;
let agentNumber: string;

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

const events = async (callId: string) => (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data as any[];

beforeAll(async () => {
  fake = new FakeTelnyx().start();
  agentId = (await post("/v1/agents", { name: "Reception", first_message: GREETING })).id;
  const connection = await post("/v1/telephony/carriers", {
    name: "Telnyx (local)",
    kind: "telnyx",
    settings: { call_control_app_id: fake.appId, api_base_url: fake.url, machine_detection: true, ring_timeout_seconds: 20 },
    credentials: { api_key: fake.apiKey, public_key: fake.publicKey },
  });
  connectionId = connection.id;
  fake.appWebhookUrl = connection.callback_urls.webhook_url;
  const bought = await post("/v1/phone-numbers/buy", { carrier_id: connectionId, number: "+14155550401" });
  agentNumber = bought.number;
  await post(`/v1/phone-numbers/${bought.id}/assign`, { agent_id: agentId });
});

afterAll(() => fake?.stop());

describe("a Telnyx connection", () => {
  test("is refused when Telnyx could not call back, or its public key is not one", async () => {
    const credentials = { api_key: fake.apiKey, public_key: fake.publicKey };
    const real = await s.server.api.post("/v1/telephony/carriers", { name: "Telnyx", kind: "telnyx", settings: { call_control_app_id: "123" }, credentials }, opts());
    expect(real.status).toBe(422);
    expect(real.body.errors[0].field).toBe("public_url");
    const badKey = await s.server.api.post("/v1/telephony/carriers", { name: "T", kind: "telnyx", settings: { call_control_app_id: "123", api_base_url: fake.url }, credentials: { ...credentials, public_key: "c2hvcnQ=" } }, opts());
    expect(badKey.body.errors[0].field).toBe("credentials.public_key");
    const noApp = await s.server.api.post("/v1/telephony/carriers", { name: "T", kind: "telnyx", settings: { api_base_url: fake.url }, credentials }, opts());
    expect(noApp.body.errors[0].field).toBe("settings.call_control_app_id");
  });

  test("numbers: search, order onto the app, import, release each the right way", async () => {
    const found = await s.server.api.get(`/v1/phone-numbers/available?carrier_id=${connectionId}&area_code=415`, opts());
    expect(found.body.data.map((n: any) => n.number)).toEqual(["+14155550402"]);
    expect(fake.owned.get(agentNumber)!.connection_id).toBe(fake.appId);
    fake.owned.set("+14155550477", { id: "abc477", phone_number: "+14155550477", connection_id: null });
    const missing = await s.server.api.post("/v1/phone-numbers/import", { number: "+14155550478", carrier: connectionId }, opts());
    expect(missing.body.errors[0].field).toBe("number");
    const imported = await post("/v1/phone-numbers/import", { number: "+14155550477", carrier: connectionId });
    expect(fake.owned.get("+14155550477")!.connection_id).toBe(fake.appId);
    expect((await s.server.api.delete(`/v1/phone-numbers/${imported.id}`, opts())).status).toBe(204);
    expect(fake.owned.get("+14155550477")!.connection_id).toBeNull();
    const bought = await post("/v1/phone-numbers/buy", { carrier_id: connectionId, area_code: "212" });
    expect((await s.server.api.delete(`/v1/phone-numbers/${bought.id}`, opts())).status).toBe(204);
    expect(fake.owned.has(bought.number)).toBe(false);
  });

  test("Parley calls out: the stream opens from client_state, the greeting is heard, keys arrive, the agent's hang-up is actions/hangup", async () => {
    fake.callee = "answer";
    const next = fake.nextCall();
    const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
    const call = await next;
    const dial = fake.requests.find((r) => r.path === "/v2/calls")!.body;
    expect(dial).toMatchObject({ connection_id: fake.appId, to: CUSTOMER, from: agentNumber, stream_bidirectional_codec: "PCMU", answering_machine_detection: "detect", timeout_secs: 20 });
    expect(dial.webhook_url).toContain(`/v1/telephony/telnyx/events?connection=${connectionId}&call=${callId}`);
    const greeted = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "agent" && t.end_ms), 20_000);
    expect(greeted.transcript[0]).toMatchObject({ role: "agent", text: GREETING });
    await waitUntil(() => call.playout.played.length * 20 >= greeted.transcript[0].end_ms - greeted.transcript[0].start_ms - 40, "the greeting to play");
    expect(loudest(call.playout.playedBytes())).toBeGreaterThan(1000);
    call.pressKey("4");
    await waitUntil(async () => (await events(callId)).some((e) => e.type === "dtmf" && e.data.digit === "4"), "the key");
    expect((await events(callId)).find((e) => e.type === "amd")?.data.verdict).toBe("human");
    expect((await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts())).status).toBe(202);
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "agent_hangup", carrier: connectionId });
    await waitUntil(() => call.actions.some((a) => a.action === "hangup"), "actions/hangup");
    expect(call.playout.marksEchoed.some((name) => name.startsWith("parley-drain"))).toBe(true);
    expect(call.webhookAnswers.every((status) => status === 204)).toBe(true);
  }, CALL_TIMEOUT);

  test("a caller rings: call.initiated is answered with a stream, the agent greets, the caller's hang-up ends it; an unassigned number is rejected", async () => {
    const call = await fake.incoming(CUSTOMER, agentNumber);
    await waitUntil(() => call.actions.some((a) => a.action === "answer") && call.playout.played.length > 25, "the answer and the greeting");
    const live = (await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data;
    expect(live[0]).toMatchObject({ status: "in_progress", to: agentNumber, from: CUSTOMER, carrier: connectionId });
    await call.hangUp();
    expect(await waitForCall(s.server.api, s.user.token, live[0].id)).toMatchObject({ status: "completed", end_reason: "customer_hangup" });

    const spare = await post("/v1/phone-numbers/buy", { carrier_id: connectionId, number: "+14155550402" });
    const refused = await fake.incoming(CUSTOMER, spare.number);
    await waitUntil(() => refused.actions.some((a) => a.action === "reject"), "the reject");
    expect((await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data.filter((c: any) => c.to === spare.number)).toEqual([]);
  }, CALL_TIMEOUT);

  test("keys the agent presses go as actions/send_dtmf", async () => {
    const presser = await keyPresserAgent(s.server.api, s.user.token, "1#");
    try {
      fake.callee = "answer";
      const next = fake.nextCall();
      const callId = (await post("/v1/calls/outbound", { agent_id: presser.agentId, to: CUSTOMER, from: agentNumber })).id;
      const call = await next;
      await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "agent" && t.end_ms), 20_000);
      await call.speak(await spokenMulaw("Press one and then hash."));
      await waitUntil(() => call.actions.some((a) => a.action === "send_dtmf"), "actions/send_dtmf", 30_000);
      expect(call.actions.find((a) => a.action === "send_dtmf")!.body).toMatchObject({ digits: "1#" });
      await call.hangUp();
      await waitForCall(s.server.api, s.user.token, callId);
    } finally {
      presser.stop();
    }
  }, CALL_TIMEOUT);

  test("transfers, busy and no answer go through Call Control", async () => {
    const next = fake.nextCall();
    const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
    const call = await next;
    await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 10_000);
    expect((await s.server.api.post(`/v1/calls/${callId}/transfer`, { to: "+14155550999" }, opts())).status).toBe(202);
    expect(await waitForCall(s.server.api, s.user.token, callId)).toMatchObject({ status: "transferred", transferred_to: "+14155550999" });
    expect(call.actions.find((a) => a.action === "transfer")?.body).toEqual({ to: "+14155550999" });

    for (const [callee, status] of [["busy", "busy"], ["no-answer", "no_answer"]] as const) {
      fake.callee = callee;
      const id = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
      expect(await waitForCall(s.server.api, s.user.token, id)).toMatchObject({ status });
    }
    fake.callee = "answer";
  }, CALL_TIMEOUT);

  test("a node with its own --node-url: a call's stream and its own events go to the node, new calls to the application's webhook (any node)", async () => {
    // The same process reached by another name stands in for a node's own address behind a load balancer.
    const nodeUrl = s.server.url.replace("127.0.0.1", "localhost");
    s.server.ctx.config.nodeUrl = nodeUrl;
    try {
      fake.callee = "answer";
      const next = fake.nextCall();
      const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
      const call = await next;
      const dial = fake.requests.filter((r) => r.path === "/v2/calls").at(-1)!.body;
      expect(dial.stream_url).toBe(`${nodeUrl.replace("http", "ws")}/v1/telephony/telnyx/stream`);
      expect(dial.webhook_url).toBe(`${nodeUrl}/v1/telephony/telnyx/events?connection=${connectionId}&call=${callId}`);
      await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 10_000);
      await call.hangUp();
      expect(await waitForCall(s.server.api, s.user.token, callId)).toMatchObject({ status: "completed", end_reason: "customer_hangup" });
      expect(call.webhookAnswers.every((status) => status === 204)).toBe(true);

      // A caller rings: call.initiated comes to the application's webhook (the public URL); the answer points the rest at this node.
      expect(fake.appWebhookUrl).toBe(`${s.server.url}/v1/telephony/telnyx/events?connection=${connectionId}`);
      const inbound = await fake.incoming(CUSTOMER, agentNumber);
      await waitUntil(() => inbound.actions.some((a) => a.action === "answer") && inbound.playout.played.length > 0, "the answer and the greeting");
      const answer = inbound.actions.find((a) => a.action === "answer")!.body;
      expect(answer.stream_url).toBe(`${nodeUrl.replace("http", "ws")}/v1/telephony/telnyx/stream`);
      expect(answer.webhook_url).toStartWith(`${nodeUrl}/v1/telephony/telnyx/events?connection=${connectionId}&call=call_`);
      await inbound.hangUp();
      const [live] = (await s.server.api.get("/v1/calls?direction=inbound&limit=1", opts())).body.data;
      expect(await waitForCall(s.server.api, s.user.token, live.id)).toMatchObject({ status: "completed", end_reason: "customer_hangup" });
    } finally {
      s.server.ctx.config.nodeUrl = "";
    }
  }, CALL_TIMEOUT);

  test("forged, stale and replayed events are refused or ignored; the call stays as it was", async () => {
    const next = fake.nextCall();
    const callId = (await post("/v1/calls/outbound", { agent_id: agentId, to: CUSTOMER, from: agentNumber })).id;
    const call = await next;
    await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 10_000);
    const url = `${s.server.url}/v1/telephony/telnyx/events?connection=${connectionId}&call=${callId}`;
    const hangup = fake.eventBody("call.hangup", { call_control_id: call.controlId, hangup_cause: "normal_clearing" });
    // Signed by another key.
    const other = new FakeTelnyx();
    expect((await fetch(url, { method: "POST", headers: other.signed(hangup), body: hangup })).status).toBe(403);
    // Telnyx's own signature, but ten minutes old: a replay.
    const stale = await fetch(url, { method: "POST", headers: fake.signed(hangup, Math.floor(Date.now() / 1000) - 600), body: hangup });
    expect(stale.status).toBe(403);
    expect(((await stale.json()) as { detail: string }).detail).toContain("replay");
    // One byte changed after signing.
    const headers = fake.signed(hangup);
    expect((await fetch(url, { method: "POST", headers, body: hangup.replace("normal_clearing", "normal_clearinG") })).status).toBe(403);
    await Bun.sleep(200);
    expect((await s.server.api.get(`/v1/calls/${callId}`, opts())).body.status).toBe("in_progress");
    // A stream that names the call with a guessed token is closed; the call goes on.
    const socket = new WebSocket(`${s.server.url.replace("http", "ws")}/v1/telephony/telnyx/stream`);
    const closed = new Promise<number>((resolve) => (socket.onclose = (event) => resolve(event.code)));
    socket.onopen = () => socket.send(JSON.stringify({ event: "start", stream_id: "s1", start: { call_control_id: call.controlId, client_state: Buffer.from(JSON.stringify({ call_id: callId, token: "guess" })).toString("base64"), media_format: { encoding: "PCMU", sample_rate: 8000 } } }));
    expect(await closed).toBe(1008);
    // The same event id twice: the second changes nothing (Telnyx retries deliveries).
    const id = crypto.randomUUID();
    const machine = fake.eventBody("call.machine.detection.ended", { call_control_id: call.controlId, result: "human" }, id);
    for (let i = 0; i < 2; i++) expect((await fetch(url, { method: "POST", headers: fake.signed(machine), body: machine })).status).toBe(204);
    expect((await events(callId)).filter((e) => e.type === "amd")).toHaveLength(2); // the dial's own detection, then this one once
    await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts());
    await waitForCall(s.server.api, s.user.token, callId);
  }, CALL_TIMEOUT);
});
