// Browser voice (endpoints 120 and 122): a session token, then a WebSocket that is a call, with the
// agent's real recogniser (PocketSphinx) hearing synthesised speech sent as a browser would send it.
import { beforeAll, describe, expect, test } from "bun:test";
import { decodeWav } from "../../src/voice/media/wav-format.ts";
import { pocketsphinxAvailability } from "../../src/voice/speech/builtin/index.ts";
import { fetchBytes, waitForCall } from "../helpers/call-api.ts";
import { createKey, registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { phonesClosedAfterEach, Softphone, speech } from "../helpers/softphone.ts";

const s = serverWithUser("browser-voice");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 40_000;
const GREETING = "Hello, this is Acme. How can I help?";

let agentId: string;
let longAgentId: string;
const tracked = phonesClosedAfterEach();
const browser = (url: string, rate: 16000 | 48000 = 16000, origin?: string) => tracked(() => new Softphone(s.server.url, null, { url, rate, origin }));

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function token(body: Record<string, unknown> = {}) {
  return post("/v1/realtime/token", { agent_id: agentId, ...body }) as Promise<{ token: string; expires_in: number; url: string }>;
}


/** The handshake by hand, to read the HTTP answer a refusal comes back as. */
function handshake(query: string, headers: Record<string, string> = {}) {
  return fetch(`${s.server.url}/v1/realtime/session?${query}`, {
    headers: { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13", ...headers },
  });
}

beforeAll(async () => {
  agentId = (await post("/v1/agents", { name: "Reception", first_message: GREETING })).id;
  longAgentId = (
    await post("/v1/agents", {
      name: "Talker",
      first_message: "Welcome to Acme. Our opening hours are nine to six on weekdays and ten to two on Saturdays, and we are closed on Sundays and public holidays, so please plan your visit.",
    })
  ).id;
});

describe("POST /v1/realtime/token", () => {
  test("a single-use token and the session URL, for a write credential", async () => {
    const issued = await token({ metadata: { page: "pricing" } });
    expect(issued.expires_in).toBe(60);
    expect(issued.token.length).toBeGreaterThan(40);
    expect(issued.url).toBe(`${s.server.url.replace(/^http/, "ws")}/v1/realtime/session?token=${issued.token}`);
    expect((await post("/v1/realtime/token", { agent_id: agentId, expires_in: 300 })).expires_in).toBe(300);
  });

  test("bad input names the field; another workspace's agent is unknown; read-only keys may not", async () => {
    const cases: [unknown, string][] = [
      [{}, "agent_id"],
      [{ agent_id: agentId, expires_in: 5 }, "expires_in"],
      [{ agent_id: agentId, variables: "x" }, "variables"],
      [{ agent_id: agentId, extra: 1 }, "extra"],
    ];
    for (const [body, field] of cases) {
      const res = await s.server.api.post("/v1/realtime/token", body, opts());
      expect(res.status).toBe(422);
      expect(JSON.stringify(res.body.errors)).toContain(field);
    }
    const other = await registerUser(s.server.api, "browser-neighbour");
    const theirs = await s.server.api.post("/v1/agents", { name: "Theirs" }, { token: other.token });
    const foreign = await s.server.api.post("/v1/realtime/token", { agent_id: theirs.body.id }, opts());
    expect(foreign.status).toBe(422);
    expect(foreign.body.errors[0].field).toBe("agent_id");
    const readOnly = await createKey(s.server.api, s.user.token, "read-only");
    expect((await s.server.api.post("/v1/realtime/token", { agent_id: agentId }, { token: readOnly.secret })).status).toBe(403);
  });
});

describe("refused before the socket opens", () => {
  test("no token, an unknown one, a used one and an expired one are 401 problems; no call is recorded", async () => {
    const missing = await handshake("");
    expect(missing.status).toBe(401);
    expect(missing.headers.get("content-type")).toContain("application/problem+json");
    const unknown = await handshake("token=not-a-token");
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as any).detail).toContain("unknown");

    const expiring = await token();
    s.server.clock.advance(61_000);
    const expired = await handshake(`token=${expiring.token}`);
    expect(expired.status).toBe(401);
    expect(((await expired.json()) as any).code).toBe("token_expired");

    const once = await token();
    const phone = browser(once.url);
    await phone.opened;
    await phone.event("session");
    const reused = await handshake(`token=${once.token}`);
    expect(reused.status).toBe(401);
    expect(((await reused.json()) as any).detail).toContain("already used");
    // A real client never connects with it either.
    const again = browser(once.url);
    expect(await again.opened.then(() => "open", () => "refused")).toBe("refused");
    phone.hangup();
    await phone.closed;
    const calls = (await s.server.api.get("/v1/calls?direction=web", opts())).body.data;
    expect(calls).toHaveLength(1);
  });
});

describe("a browser voice session", () => {
  const sphinx = pocketsphinxAvailability();
  test.skipIf(!sphinx.available)("greets in wideband audio with captions, transcribes the visitor, answers, and is a real call", async () => {
    const issued = await token({ variables: { plan: "pro" }, metadata: { page: "pricing" } });
    const phone = browser(issued.url);
    await phone.opened;
    const session = await phone.event("session");
    expect(session).toEqual({ type: "session", call_id: expect.stringMatching(/^call_/), sample_rate: 16000 });
    const callId: string = session.call_id;
    expect(await phone.until(() => phone.events.find((e) => e.type === "transcript" && e.role === "agent"), 10_000, "the greeting's caption")).toEqual({ type: "transcript", role: "agent", text: GREETING });
    await phone.agentFinished();
    expect(new Set(phone.frameBytes)).toEqual(new Set([640]));
    expect(phone.loudFrames()).toBeGreaterThan(50);

    const live = (await s.server.api.get(`/v1/calls/${callId}`, opts())).body;
    expect(live).toMatchObject({ direction: "web", status: "in_progress", carrier: "browser", from: null, to: null, agent_id: agentId, variables: { plan: "pro" }, metadata: { page: "pricing" } });

    const heardBefore = phone.received.length;
    phone.speak(await speech("What are your opening hours?", 16000));
    const caption = await phone.until(() => phone.events.find((e) => e.type === "transcript" && e.role === "caller"), 15_000, "the visitor's words");
    expect(caption.text).toMatch(/hour|open/);
    await phone.until(() => phone.loudFrames(heardBefore) > 25, 15_000, "the agent's answer");
    phone.hangup();
    expect(await phone.event("ended")).toEqual({ type: "ended", reason: "customer_hangup" });
    expect((await phone.closed).code).toBe(1000);

    const ended = await waitForCall(s.server.api, s.user.token, callId);
    expect(ended).toMatchObject({ status: "completed", end_reason: "customer_hangup", direction: "web" });
    expect(ended.transcript[0]).toMatchObject({ role: "agent", text: GREETING });
    expect(ended.transcript.find((t: any) => t.role === "caller").text).toBe(caption.text);
    const events = (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data;
    expect(events.filter((e: any) => e.type === "status").map((e: any) => e.data.status)).toEqual(["ringing", "in_progress", "completed"]);
    const wav = decodeWav((await fetchBytes(`${s.server.url}/v1/calls/${callId}/recording`, s.user.token)).bytes);
    expect(wav.info).toMatchObject({ sampleRate: 16000, channels: 2 });
  }, CALL_TIMEOUT);

  test("at 48 kHz the audio is resampled at the edge both ways", async () => {
    const phone = browser((await token()).url, 48000);
    await phone.opened;
    expect((await phone.event("session")).sample_rate).toBe(48000);
    await phone.until(() => phone.loudFrames() > 20, 10_000, "the greeting");
    // 20 ms at 48 kHz is 960 samples; the resampler's frames wobble by a sample or two.
    const sizes = phone.frameBytes.slice(5, 50);
    for (const size of sizes) expect(Math.abs(size - 1920)).toBeLessThanOrEqual(8);
    phone.speak(await speech("Hello there", 48000));
    await phone.drained();
    phone.hangup();
    const { call_id: callId } = phone.events.find((e) => e.type === "session");
    expect(await waitForCall(s.server.api, s.user.token, callId)).toMatchObject({ status: "completed" });
    const wav = decodeWav((await fetchBytes(`${s.server.url}/v1/calls/${callId}/recording`, s.user.token)).bytes);
    expect(wav.info.sampleRate).toBe(16000);
  }, CALL_TIMEOUT);

  test("talking over the agent clears the browser's playback", async () => {
    const issued = await post("/v1/realtime/token", { agent_id: longAgentId });
    const phone = browser(issued.url);
    await phone.opened;
    await phone.until(() => phone.loudFrames() > 25, 10_000, "the agent talking");
    phone.speak(await speech("Excuse me, I have a question about my order please", 16000));
    // The agent's audio stops at the caller as soon as the speech over it lasts (the browser clears what it
    // buffered); the words then make it an interruption.
    await phone.event("clear", 10_000);
    const { call_id: callId } = phone.events.find((e) => e.type === "session");
    const bargedIn = async () => (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data.some((e: any) => e.type === "barge_in");
    for (let tries = 0; tries < 100 && !(await bargedIn()); tries++) await Bun.sleep(100);
    phone.hangup();
    expect(await bargedIn()).toBe(true);
  }, CALL_TIMEOUT);

  test("a sentence is captioned as its audio starts: hung up during the first, the next ones are never shown", async () => {
    // The greeting, then the flow's two sentences: three sentences spoken one after the other.
    const flow = {
      start: "hours",
      nodes: {
        hours: { type: "say", text: "We are open from nine in the morning until six in the evening on every weekday.", next: "ask" },
        ask: { type: "ask", text: "What can I do for you?", slot: { name: "topic", type: "string" }, next: "hours" },
      },
    };
    const teller = await post("/v1/agents", { name: "Teller", first_message: "Welcome to Acme, the shop on the corner.", brain: { type: "flow", flow } });
    const phone = browser((await post("/v1/realtime/token", { agent_id: teller.id })).url);
    await phone.opened;
    const { call_id: callId } = await phone.event("session");
    const captions = () => phone.events.filter((e) => e.type === "transcript" && e.role === "agent").map((e) => e.text);
    // Most of a second into the greeting (which lasts over two), the caller hangs up.
    await phone.until(() => phone.loudFrames() >= 40, 10_000, "the greeting playing");
    expect(captions()).toEqual(["Welcome to Acme, the shop on the corner."]);
    phone.hangup();
    await phone.closed;
    // What was captioned is what was spoken: the transcript has the greeting cut short and nothing after it.
    expect(captions()).toEqual(["Welcome to Acme, the shop on the corner."]);
    const call = await waitForCall(s.server.api, s.user.token, callId);
    expect(call.transcript.map((turn: { role: string }) => turn.role)).toEqual(["agent"]);
    expect(call.transcript[0]).toMatchObject({ interrupted: true });
    expect("Welcome to Acme, the shop on the corner.").toStartWith(call.transcript[0].text);
  }, CALL_TIMEOUT);

  test("malformed audio or text fails the call with the reason and a clear close code", async () => {
    for (const [bad, code, says] of [
      [new Uint8Array(641), 1007, "641 bytes"],
      ["this is not json", 1007, "not JSON"],
      [JSON.stringify({ type: "shout" }), 1003, "unknown message type"],
    ] as const) {
      const phone = browser((await token()).url);
      await phone.opened;
      const { call_id: callId } = await phone.event("session");
      await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 5_000);
      (phone as any).socket.send(bad);
      expect((await phone.closed).code).toBe(code);
      expect(phone.events.at(-1)).toEqual({ type: "ended", reason: "protocol_error" });
      const call = await waitForCall(s.server.api, s.user.token, callId);
      expect(call).toMatchObject({ status: "failed", end_reason: "protocol_error" });
      const events = (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data;
      expect(events.find((e: any) => e.type === "error").data.message).toContain(says);
    }
  }, CALL_TIMEOUT);

  test("the agent hanging up ends the session with its reason", async () => {
    const phone = browser((await token()).url);
    await phone.opened;
    const { call_id: callId } = await phone.event("session");
    await waitForCall(s.server.api, s.user.token, callId, (c) => c.status === "in_progress", 5_000);
    expect((await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, opts())).status).toBe(202);
    expect(await phone.event("ended")).toEqual({ type: "ended", reason: "agent_hangup" });
    expect((await phone.closed).code).toBe(1000);
  }, CALL_TIMEOUT);
});
