// Recordings in a cluster: a call's WAV is written on the node that holds its media and, as the call
// ends, moves into the shared file store (PostgreSQL chunks by default, or --files-dir); every node then
// serves it with ranges, makes its MP3, and an erase through any node removes it for all.
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { markStopped, registerNode } from "../../src/cluster/nodes.ts";
import { closeFileStore, fileStore } from "../../src/files/file-store.ts";
import { openRecording } from "../../src/modules/calls/recording-store.ts";
import { decodeWav } from "../../src/voice/media/wav-format.ts";
import { fetchBytes, waitForCall } from "../helpers/call-api.ts";
import { registerUser } from "../helpers/fixtures.ts";
import { decodeMp3 } from "../helpers/mp3.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { createTestContext } from "../helpers/server.ts";

/** A simulated call through the cluster (any node's job runner places it); its id, the node that held it, and two others. */
async function recordedCall(cluster: Nodes, database: string) {
  const api = cluster.nodes[0].api;
  const user = await registerUser(api, "recordings");
  const as = { token: user.token };
  const agent = (await api.post("/v1/agents", { name: "Front desk" }, as)).body;
  const number = (await api.post("/v1/phone-numbers/buy", { number: "+14155550120" }, as)).body;
  expect((await api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, as)).status).toBe(200);
  const placed = await api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { behaviour: "hang_up", hang_up_after_ms: 9_500 } }, as);
  expect(placed.status).toBe(201);
  const id = placed.body.id as string;
  // Asked through another node as soon as the call has ended: its recording must already be there, or be waited for.
  const ended = await waitForCall(cluster.nodes[1].api, user.token, id, (c) => !["queued", "ringing", "in_progress"].includes(c.status));
  const sql = new SQL(database);
  const [{ url }] = await sql`SELECT n.url FROM calls c JOIN nodes n ON n.id = c.node_id WHERE c.id = ${id}`;
  await sql.close();
  const port = new URL(url).port;
  const holder = cluster.nodes.find((node) => new URL(node.url).port === port)!;
  const [reader, third] = cluster.nodes.filter((node) => node !== holder);
  return { user, id, ended, holder, reader, third };
}

/** The checks every store must pass: ranges from a node that did not hold the call, the MP3 from a third, erase for all. */
async function servedEverywhere(cluster: Nodes, database: string, store: { has(path: string): Promise<boolean> }) {
  const { user, id, ended, holder, reader, third } = await recordedCall(cluster, database);
  expect(ended.recording_url).toContain(`/v1/calls/${id}/recording.mp3`);
  const wavPath = `recordings/${user.workspaceId}/${id}.wav`;
  const url = (node: { url: string }, path = "recording") => `${node.url}/v1/calls/${id}/${path}`;

  const whole = await fetchBytes(url(reader), user.token);
  expect(whole.status).toBe(200);
  expect(whole.headers.get("content-length")).toBe(String(whole.bytes.length));
  const { info } = decodeWav(whole.bytes);
  expect(info).toMatchObject({ sampleRate: 8000, channels: 2 });
  expect(Math.abs(info.durationMs - ended.duration_ms)).toBeLessThan(500);
  // The holder kept no copy of its own: what it serves comes from the store too.
  expect(existsSync(join(cluster.dataDirs[cluster.nodes.indexOf(holder)], wavPath))).toBe(false);
  expect((await fetchBytes(url(holder), user.token)).bytes).toEqual(whole.bytes);

  // Across the first chunk boundary (256 KiB) and at the end, from the node that did not hold the call.
  const size = whole.bytes.length;
  expect(size).toBeGreaterThan(262_144 + 300);
  for (const [from, to] of [[0, 43], [262_000, 262_300], [size - 10, size - 1]]) {
    const part = await fetchBytes(url(reader), user.token, { range: `bytes=${from}-${to}` });
    expect({ status: part.status, range: part.headers.get("content-range"), length: part.headers.get("content-length") }).toEqual({ status: 206, range: `bytes ${from}-${to}/${size}`, length: String(to - from + 1) });
    expect(part.bytes).toEqual(whole.bytes.subarray(from, to + 1));
  }
  const past = await fetchBytes(url(reader), user.token, { range: `bytes=${size}-` });
  expect({ status: past.status, range: past.headers.get("content-range") }).toEqual({ status: 416, range: `bytes */${size}` });

  // The MP3, made by a third node on first request and kept in the store for every node.
  const mp3 = await fetchBytes(url(third, "recording.mp3"), user.token);
  expect(mp3.status).toBe(200);
  expect(mp3.headers.get("content-type")).toBe("audio/mpeg");
  const decoded = await decodeMp3(mp3.bytes);
  expect(decoded.errors).toEqual([]);
  expect(decoded.sampleRate).toBe(8000);
  expect(Math.abs((decoded.samplesDecoded / 8000) * 1000 - ended.duration_ms)).toBeLessThan(400);
  expect(await store.has(wavPath.replace(/\.wav$/, ".mp3"))).toBe(true);
  const negotiated = await fetchBytes(url(holder), user.token, { accept: "audio/mpeg", range: "bytes=0-99" });
  expect(negotiated.status).toBe(206);
  expect(negotiated.bytes).toEqual(mp3.bytes.subarray(0, 100));

  // Erased through one node: gone from the store, and every node says so.
  expect((await reader.api.delete(`/v1/calls/${id}`, { token: user.token })).status).toBe(204);
  for (const path of [wavPath, wavPath.replace(/\.wav$/, ".mp3")]) expect(await store.has(path)).toBe(false);
  for (const node of cluster.nodes) {
    for (const path of ["recording", "recording.mp3"]) expect((await fetchBytes(url(node, path), user.token)).status).toBe(410);
  }
}

describe("three nodes on PostgreSQL, recordings in the database (the default)", () => {
  const database = freshDatabase();
  let cluster: Nodes;
  beforeAll(async () => {
    cluster = await startNodes(database, 3);
  }, 60_000);
  afterAll(() => cluster?.stop());

  test("a recording is served with ranges by a node that did not hold the call, its MP3 by a third, and an erase reaches all", async () => {
    const sql = new SQL(database);
    try {
      await servedEverywhere(cluster, database, { has: async (path) => (await sql`SELECT 1 FROM stored_files WHERE path = ${path}`).length === 1 });
      // Chunks of 256 KiB, none left behind by the erase or by a staged upload.
      expect(await sql`SELECT count(*)::int AS n FROM file_chunks`).toEqual([{ n: 0 }]);
      expect(await sql`SELECT count(*)::int AS n FROM stored_files`).toEqual([{ n: 0 }]);
    } finally {
      await sql.close();
    }
  }, 60_000);
});

describe("three nodes sharing --files-dir", () => {
  const database = freshDatabase();
  const shared = mkdtempSync(join(tmpdir(), "parley-files-"));
  let cluster: Nodes;
  beforeAll(async () => {
    cluster = await startNodes(database, 3, ["--files-dir", shared]);
  }, 60_000);
  afterAll(async () => {
    await cluster?.stop();
    rmSync(shared, { recursive: true, force: true });
  });

  test("the same through the shared directory; the database holds no file", async () => {
    await servedEverywhere(cluster, database, { has: async (path) => existsSync(join(shared, path)) });
    const sql = new SQL(database);
    expect(await sql`SELECT count(*)::int AS n FROM stored_files`).toEqual([{ n: 0 }]);
    await sql.close();
  }, 60_000);
});

describe("a reader on another node while the holder is still storing", () => {
  const database = freshDatabase();
  const holder = createTestContext({ databaseUrl: database });
  const reader = createTestContext({ databaseUrl: database });
  const dir = mkdtempSync(join(tmpdir(), "parley-storing-"));
  afterAll(async () => {
    for (const node of [holder, reader]) {
      await closeFileStore(node.ctx);
      node.close();
    }
    rmSync(dir, { recursive: true, force: true });
  });
  const call = (id: string) => ({ id, workspaceId: "ws_1", recordingPath: `recordings/ws_1/${id}.wav`, erasedAt: null, nodeId: holder.ctx.nodeId });

  test("waits for the live holder's upload instead of answering 404; once the holder has stopped, 404 at once", async () => {
    registerNode(holder.ctx, "http://holder.internal:8080");
    let settled = false;
    const reading = openRecording(reader.ctx, call("call_a")).finally(() => (settled = true));
    await Bun.sleep(600);
    expect(settled).toBe(false);
    const local = join(dir, "call_a.wav");
    writeFileSync(local, new Uint8Array(300_000).fill(7));
    await fileStore(holder.ctx).moveIn(call("call_a").recordingPath, local, { workspaceId: "ws_1", contentType: "audio/wav" });
    expect((await reading).size).toBe(300_000);

    markStopped(holder.ctx); // a stopped node stored what it had before saying so
    const started = Date.now();
    await expect(openRecording(reader.ctx, call("call_b"))).rejects.toMatchObject({ status: 404 });
    expect(Date.now() - started).toBeLessThan(1_000);
  }, 20_000);
});
