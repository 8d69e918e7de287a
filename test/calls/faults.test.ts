// Faults under a live call. The database refusing writes for a moment (another connection holding the
// write lock past the busy timeout, a full disk): the call talks on, and every report it makes is
// recorded, in order, once the database takes writes again. A defect in a call's own 20 ms tick: that
// call ends failed, saying so, and every other call and the server go on. A disk that refuses the
// recording: the recording stops, the call does not.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { holdRowOrWriteLock } from "../helpers/write-lock.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { liveCalls } from "../../src/voice/runtime/registry.ts";

const LINES = ["What are your opening hours?", "Thanks, goodbye"];

async function agentWithNumber(server: TestServer, name: string) {
  const user = await registerUser(server.api, name);
  const key = (await createKey(server.api, user.token, "admin")).secret;
  const agent = (await server.api.post("/v1/agents", { name, first_message: "Hello, how can I help?" }, { token: key })).body;
  const number = (await server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, { token: key })).body;
  await server.api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, { token: key });
  return { key, agentId: agent.id as string };
}

const ended = (c: { status: string }) => !["queued", "ringing", "in_progress"].includes(c.status);

/** A call whose callee says LINES, once it is in progress. */
async function talkingCall(server: TestServer, key: string, agentId: string): Promise<string> {
  const placed = await server.api.post("/v1/calls/outbound", { agent_id: agentId, to: "+12125550150", simulation: { lines: LINES, recognition: "simulated" } }, { token: key });
  expect(placed.status).toBe(201);
  await waitForCall(server.api, key, placed.body.id, (c) => c.status === "in_progress", 20_000);
  return placed.body.id;
}

test("reports the database refuses are held and written in order; the call goes on and ends as it would have", async () => {
  const server = await startTestServer();
  try {
    const { key, agentId } = await agentWithNumber(server, "Patient");
    const callId = await talkingCall(server, key, agentId);
    // PostgreSQL: the call's row, which its reports update and their timeline rows reference.
    const lock = await holdRowOrWriteLock(server.ctx, "calls", { column: "id", value: callId });
    await Bun.sleep(3000); // the screening verdict and the greeting fall in here
    await lock.release();

    const call = await waitForCall(server.api, key, callId, ended, 40_000);
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    expect(server.logs.some((line) => line.includes("the database refused a call's report") && lock.refusal.test(line))).toBe(true);
    expect(server.logs.some((line) => line.includes("a call's held reports are written"))).toBe(true);
    // Nothing lost: both caller lines, every agent turn, in start order, each with its timeline entry.
    const turns = call.transcript as { role: string; text: string; start_ms: number }[];
    expect(turns.filter((t) => t.role === "caller").map((t) => t.text)).toEqual(LINES);
    expect(turns[0]).toMatchObject({ role: "agent", text: "Hello, how can I help?" });
    expect(turns.map((t) => t.start_ms)).toEqual(turns.map((t) => t.start_ms).toSorted((a, b) => a - b));
    const timeline = (await server.api.get(`/v1/calls/${callId}/events?limit=100`, { token: key })).body.data as { type: string; data: Record<string, unknown> }[];
    expect(timeline.filter((e) => e.type === "turn").map((e) => e.data.index)).toEqual(turns.map((_, i) => i));
    expect(timeline.find((e) => e.type === "amd")?.data.verdict).toBe("human");
    expect(timeline.filter((e) => e.type === "status").map((e) => e.data.status)).toEqual(["queued", "ringing", "in_progress", "completed"]);
  } finally {
    await server.stop();
  }
}, 60_000);

test("a call that fails inside (in its tick, or handling the caller's audio) ends failed with its reason logged once; other calls and the server go on", async () => {
  const server = await startTestServer();
  try {
    const { key, agentId } = await agentWithNumber(server, "Fragile");
    const place = async () => (await server.api.post("/v1/calls/outbound", { agent_id: agentId, to: "+12125550150", simulation: { behaviour: "silent" } }, { token: key })).body.id as string;
    const [brokenTick, brokenHearing, healthy] = [await place(), await place(), await place()];
    for (const id of [brokenTick, brokenHearing, healthy]) await waitForCall(server.api, key, id, (c) => c.status === "in_progress", 20_000);
    // Fault injection: one call's line fails on the next frame the agent sends (its tick), another's
    // decoding of the caller's next frame (the carrier's audio handler).
    const tick = liveCalls(server.ctx).get(brokenTick) as unknown as { leg: { sendAudio: () => void } };
    tick.leg.sendAudio = () => {
      throw new Error("injected line failure");
    };
    const hearing = liveCalls(server.ctx).get(brokenHearing) as unknown as { caller: { decode: () => void } };
    hearing.caller.decode = () => {
      throw new Error("injected decoding failure");
    };
    for (const [id, message] of [[brokenTick, "injected line failure"], [brokenHearing, "injected decoding failure"]]) {
      expect(await waitForCall(server.api, key, id, ended, 20_000)).toMatchObject({ status: "failed", end_reason: "error" });
      expect(server.logs.filter((line) => line.includes("a live call failed inside") && line.includes(id) && line.includes(message))).toHaveLength(1);
    }
    expect((await server.api.get(`/v1/calls/${healthy}`, { token: key })).body.status).toBe("in_progress");
    expect((await server.api.get("/v1/health")).status).toBe(200);
    await server.api.post(`/v1/calls/${healthy}/hangup`, {}, { token: key });
    expect(await waitForCall(server.api, key, healthy, ended, 20_000)).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
  } finally {
    await server.stop();
  }
}, 60_000);

test("a recording the disk refuses stops, and the call goes on: it ends as it would have, with no recording and the reason in its timeline", async () => {
  const server = await startTestServer();
  try {
    const { key, agentId } = await agentWithNumber(server, "Recorded");
    const callId = await talkingCall(server, key, agentId);
    // Fault injection: the disk fills up under the recording.
    const { recording } = liveCalls(server.ctx).get(callId) as unknown as { recording: { path: string; writer: { writeAt: () => void } } };
    const path = recording.path;
    expect(existsSync(path)).toBe(true);
    recording.writer.writeAt = () => {
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    };
    const call = await waitForCall(server.api, key, callId, ended, 40_000);
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup", recording_url: null });
    expect((call.transcript as { role: string; text: string }[]).filter((t) => t.role === "caller").map((t) => t.text)).toEqual(LINES);
    const timeline = (await server.api.get(`/v1/calls/${callId}/events?limit=100`, { token: key })).body.data as { type: string; data: Record<string, unknown> }[];
    expect(timeline.filter((e) => e.type === "error").map((e) => e.data)).toEqual([{ code: "recording_failed", message: "the recording stopped: ENOSPC: no space left on device, write", fatal: false }]);
    expect((await server.api.get(`/v1/calls/${callId}/recording`, { token: key })).status).toBe(404);
    await Bun.sleep(50);
    expect(existsSync(path)).toBe(false);
  } finally {
    await server.stop();
  }
}, 60_000);
