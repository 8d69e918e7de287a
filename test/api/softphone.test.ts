// The simulated carrier's inbound side: a WebSocket softphone that dials a workspace number and talks
// to its agent with real audio (Flite-synthesised caller speech, µ-law, paced 20 ms frames).
import { beforeAll, describe, expect, test } from "bun:test";
import { decodeWav } from "../../src/voice/media/wav-format.ts";
import { channelRms, fetchBytes, waitForCall } from "../helpers/call-api.ts";
import { createKey, registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { phonesClosedAfterEach, Softphone, speech } from "../helpers/softphone.ts";

const s = serverWithUser("softphone");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 40_000;

const NUMBER = "+14155550130";
const UNASSIGNED = "+14155550131";
const SWITCHED_OFF = "+14155550132";
const CALLER = "+12125550177";
const QUESTION = "What are your opening hours?";

let key: string;
let agentId: string;
const tracked = phonesClosedAfterEach();
const softphone = (options: ConstructorParameters<typeof Softphone>[2]) => tracked(() => new Softphone(s.server.url, key, options));

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}


/** A WebSocket handshake by hand, to read the HTTP answer a refusal comes back as (before any upgrade). */
function dial(query: Record<string, string>, token: string | null = key) {
  const headers: Record<string, string> = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };
  if (token) headers.authorization = `Bearer ${token}`;
  return fetch(`${s.server.url}/v1/telephony/simulated/softphone?${new URLSearchParams(query)}`, { headers });
}

beforeAll(async () => {
  key = (await createKey(s.server.api, s.user.token, "write")).secret;
  const agent = await post("/v1/agents", { name: "Reception", first_message: "Hello, this is Acme. How can I help?" });
  agentId = agent.id;
  for (const number of [NUMBER, UNASSIGNED, SWITCHED_OFF]) {
    const bought = await post("/v1/phone-numbers/buy", { number });
    if (number !== UNASSIGNED) await post(`/v1/phone-numbers/${bought.id}/assign`, { agent_id: agentId });
    if (number === NUMBER) await s.server.api.patch(`/v1/phone-numbers/${bought.id}`, { inbound: { variables: { team: "support" } } }, opts());
    if (number === SWITCHED_OFF) await s.server.api.patch(`/v1/phone-numbers/${bought.id}`, { inbound: { enabled: false } }, opts());
  }
});

describe("refused before the upgrade", () => {
  test("no credential 401, read-only key 403, bad query 422", async () => {
    const anonymous = await dial({ to: NUMBER }, null);
    expect(anonymous.status).toBe(401);
    expect(((await anonymous.json()) as any).code).toBe("unauthorized");
    const readOnly = await createKey(s.server.api, s.user.token, "read-only");
    expect((await dial({ to: NUMBER }, readOnly.secret)).status).toBe(403);
    expect((await dial({ to: "4155550130" })).status).toBe(422);
    expect((await dial({ to: NUMBER, encoding: "opus" })).status).toBe(422);
  });

  test("unknown and other workspaces' numbers are 404; unassigned or switched-off numbers 409", async () => {
    const unknown = await dial({ to: "+19995550100" });
    expect(unknown.status).toBe(404);
    const other = await registerUser(s.server.api, "neighbour");
    const theirs = await s.server.api.post("/v1/phone-numbers/buy", { number: "+14155550139" }, { token: other.token });
    const theirAgent = await s.server.api.post("/v1/agents", { name: "Theirs" }, { token: other.token });
    await s.server.api.post(`/v1/phone-numbers/${theirs.body.id}/assign`, { agent_id: theirAgent.body.id }, { token: other.token });
    const elsewhere = await dial({ to: "+14155550139" });
    expect(elsewhere.status).toBe(404);
    expect(((await elsewhere.json()) as any).code).toBe("not_found");

    const unassigned = await dial({ to: UNASSIGNED });
    expect(unassigned.status).toBe(409);
    expect(unassigned.headers.get("content-type")).toContain("application/problem+json");
    expect(((await unassigned.json()) as any).detail).toContain("no agent answers");
    const off = await dial({ to: SWITCHED_OFF });
    expect(off.status).toBe(409);
    expect(((await off.json()) as any).detail).toContain("switched off");

    // A real WebSocket client never gets a connection either, and no call is recorded.
    const phone = softphone({ to: SWITCHED_OFF });
    expect(await phone.opened.then(() => "open", () => "refused")).toBe("refused");
    expect((await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data).toEqual([]);
  });
});

describe("an inbound call", () => {
  test("greets with audio, hears the caller, shows live, then completes when the caller hangs up", async () => {
    const question = await speech(QUESTION, 8000);
    const phone = softphone({ to: NUMBER, from: CALLER, recognition: "simulated" });
    await phone.opened;
    const ringing = await phone.event("call");
    expect(ringing).toEqual({ type: "call", call_id: expect.stringMatching(/^call_/), status: "ringing" });
    const callId: string = ringing.call_id;
    expect(await phone.event("answered")).toEqual({ type: "answered", call_id: callId });

    // The greeting arrives as binary 20 ms µ-law frames, and it is speech, not silence.
    await phone.agentFinished();
    expect(new Set(phone.frameBytes)).toEqual(new Set([160]));
    expect(phone.loudFrames()).toBeGreaterThan(50);

    const live = (await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data;
    expect(live).toHaveLength(1);
    expect(live[0]).toMatchObject({ id: callId, direction: "inbound", status: "in_progress", from: CALLER, to: NUMBER, agent_id: agentId, carrier: "simulated" });
    expect(live[0].variables).toEqual({ team: "support", caller_number: CALLER });

    const heardBefore = phone.received.length;
    const spoken = phone.speak(question, QUESTION);
    await phone.drained();
    const withQuestion = await waitForCall(s.server.api, s.user.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "caller"), 10_000);
    const callerTurn = withQuestion.transcript.find((t: any) => t.role === "caller");
    expect(callerTurn.text).toBe(QUESTION);
    // Where the caller's voice was on the line, give or take the detector's edges.
    expect(Math.abs(callerTurn.start_ms - spoken.startMs)).toBeLessThan(400);
    // The agent answers it out loud.
    await phone.until(() => phone.loudFrames(heardBefore) > 25, 10_000, "the agent's answer");

    phone.send({ type: "dtmf", digit: "5" });
    phone.hangup();
    expect(await phone.event("ended")).toEqual({ type: "ended", reason: "customer_hangup" });
    expect((await phone.closed).code).toBe(1000);

    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "customer_hangup", direction: "inbound" });
    expect(ended.transcript[0]).toMatchObject({ role: "agent", text: "Hello, this is Acme. How can I help?" });
    expect(ended.transcript.filter((t: any) => t.role === "caller").map((t: any) => t.text)).toEqual([QUESTION]);
    const events = (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data;
    expect(events.filter((e: any) => e.type === "status").map((e: any) => e.data.status)).toEqual(["ringing", "in_progress", "completed"]);
    expect(events.find((e: any) => e.type === "dtmf")?.data).toMatchObject({ digit: "5" });
    // The upgrade was an API-key request like any other: it left its audit row.
    const audited = (await s.server.api.get("/v1/audit-log?limit=100", opts())).body.data;
    expect(audited.filter((e: any) => e.path === "/v1/telephony/simulated/softphone" && e.actor_type === "api_key" && e.method === "GET")).not.toHaveLength(0);

    // The recording has the caller's question on the left and the greeting on the right.
    const wav = decodeWav((await fetchBytes(`${s.server.url}/v1/calls/${callId}/recording`, s.user.token)).bytes);
    expect(wav.info).toMatchObject({ sampleRate: 8000, channels: 2 });
    const greeting = ended.transcript[0];
    expect(channelRms(wav.samples, 8000, 1, greeting.start_ms + 200, greeting.end_ms - 200)).toBeGreaterThan(300);
    const left = channelRms(wav.samples, 8000, 0, callerTurn.start_ms + 200, callerTurn.end_ms - 200);
    expect(left).toBeGreaterThan(300);
    expect(channelRms(wav.samples, 8000, 1, callerTurn.start_ms + 200, callerTurn.end_ms - 200)).toBeLessThan(left / 10);
  }, CALL_TIMEOUT);

  test("linear PCM at 16 kHz: 640-byte frames both ways; closing the socket ends the call", async () => {
    const phone = softphone({ to: NUMBER, encoding: "l16", rate: 16000, recognition: "simulated" });
    await phone.opened;
    const { call_id: callId } = await phone.event("call");
    await phone.until(() => phone.loudFrames() > 10, 10_000, "the greeting");
    expect(new Set(phone.frameBytes)).toEqual(new Set([640]));
    phone.close(); // no hangup message: the socket just goes
    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "customer_hangup", from: null });
    const wav = decodeWav((await fetchBytes(`${s.server.url}/v1/calls/${callId}/recording`, s.user.token)).bytes);
    expect(wav.info.sampleRate).toBe(16000);
  }, CALL_TIMEOUT);

  test("the agent hanging up closes the socket with an ended message", async () => {
    const phone = softphone({ to: NUMBER, recognition: "simulated" });
    await phone.opened;
    const { call_id: callId } = await phone.event("answered");
    await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 5_000);
    expect((await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts())).status).toBe(202);
    expect(await phone.event("ended")).toEqual({ type: "ended", reason: "hangup" });
    expect((await phone.closed).code).toBe(1000);
    expect(await waitForCall(s.server.api, s.user.token, callId)).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
  }, CALL_TIMEOUT);
});
