// The start-up sweep of calls a previous run left live, in a cluster. On PostgreSQL a node starting ends
// no call another live node holds; the process that served the same data dir before (killed: this one
// now holds the dir's lock) is taken over at once, its calls ended `node_lost` without waiting for the
// 15 s bound. On SQLite (one process per data dir) every other node that never stopped is marked lost at
// start and its calls ended as before.
import { SQL } from "bun";
import { afterAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callingAgent } from "../helpers/campaigns.ts";
import { ApiClient } from "../helpers/client.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { FROM_SOURCE, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { createTestContext, startTestServer } from "../helpers/server.ts";

const root = mkdtempSync(join(tmpdir(), "parley-start-sweep-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("PostgreSQL: a starting node leaves another live node's call alone; a restart on a killed node's data dir takes that node over at once", async () => {
  const url = freshDatabase();
  const db = new SQL(url);
  const setup = createTestContext({ databaseUrl: url });
  const running: ServerProcess[] = [];
  const start = async (dir: string) => {
    mkdirSync(join(root, dir), { recursive: true, mode: 0o700 });
    copyFileSync(setup.ctx.dataDir.secretFile, join(root, dir, "instance.key"));
    const node = await spawnServer(FROM_SOURCE, ["--data-dir", join(root, dir), "--database-url", url, "--allow-private-urls"], { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" } });
    running.push(node);
    return { ...node, api: new ApiClient(node.url), id: (await new ApiClient(node.url).get("/v1/health")).body.node.id as string };
  };
  const status = async (id: string) => (await db`SELECT status, end_reason, node_id FROM calls WHERE id = ${id}`)[0];
  try {
    const first = await start("a");
    const owner = await registerUser(first.api, "start");
    const key = (await createKey(first.api, owner.token, "admin")).secret;
    const agent = await callingAgent(first.api, key, "415", { turn_taking: { silence: { reminder_after_s: 600, reminder_message: "Still there?", timeout_s: 900 }, max_duration_s: 1200, endpointing_ms: 500, interruptions: { enabled: true, min_speech_ms: 250 }, end_call_phrases: [] } });
    const placed = await first.api.post("/v1/calls/outbound", { agent_id: agent.agentId, to: "+12125550170", simulation: { behaviour: "silent" } }, { token: key });
    expect(placed.status).toBe(201);
    const callId = placed.body.id as string;
    for (let i = 0; i < 100 && (await status(callId)).status !== "in_progress"; i++) await Bun.sleep(100);
    expect(await status(callId)).toMatchObject({ status: "in_progress", node_id: first.id });

    await start("b");
    await Bun.sleep(500); // its start-up sweeps have run
    expect((await status(callId)).status).toBe("in_progress");

    first.child.kill("SIGKILL");
    await first.child.exited;
    const killedAt = Date.now();
    const again = await start("a");
    for (let i = 0; i < 50 && (await status(callId)).status === "in_progress"; i++) await Bun.sleep(100);
    const tookMs = Date.now() - killedAt;
    expect(await status(callId)).toMatchObject({ status: "failed", end_reason: "node_lost" });
    expect(tookMs).toBeLessThan(10_000); // not the 15 s bound of a silent node: the restart knew
    const [node] = await db`SELECT lost_by FROM nodes WHERE id = ${first.id}`;
    expect(node.lost_by).toBe(again.id);
  } finally {
    await Promise.all(running.map((node) => node.stop()));
    setup.close();
    await db.close();
  }
}, 60_000);

test("the start-up sweep on a restart: SQLite ends every call left live (a node that never stopped is marked lost); PostgreSQL ends none while another node may be alive", async () => {
  const dataDir = join(root, "restart");
  const first = await startTestServer({ settings: { dataDir } });
  const { ctx } = first;
  const owner = await registerUser(first.api, "orphan");
  const agent = await callingAgent(first.api, (await createKey(first.api, owner.token, "admin")).secret);
  const now = ctx.clock.now();
  // A node that died without a word, with a call it was dialling, and a call from before nodes were recorded.
  ctx.sqlite.prepare("INSERT INTO nodes (id, name, url, version, started_at, heartbeat_at) VALUES ('node_dead', 'dead', NULL, '0', ?, ?)").run(now - 60_000, now - 1_000);
  const call = (id: string, nodeId: string | null) =>
    ctx.sqlite
      .prepare("INSERT INTO calls (id, workspace_id, agent_id, agent_version, direction, carrier, status, variables, metadata, created_at, updated_at, node_id) VALUES (?, ?, ?, 1, 'outbound', 'simulated', 'ringing', '{}', '{}', ?, ?, ?)")
      .run(id, owner.workspaceId, agent.agentId, now, now, nodeId);
  call("call_dead_node", "node_dead");
  call("call_no_node", null);
  await first.stop();
  const second = await startTestServer({ settings: { dataDir } });
  try {
    const read = (id: string) => second.ctx.sqlite.prepare("SELECT status, end_reason FROM calls WHERE id = ?").get(id);
    const dead = second.ctx.sqlite.prepare("SELECT lost_at, lost_by FROM nodes WHERE id = 'node_dead'").get() as { lost_at: number | null; lost_by: string | null };
    if (second.ctx.dialect === "sqlite") {
      expect(dead.lost_by).toBe(second.ctx.nodeId);
      expect(read("call_dead_node")).toEqual({ status: "canceled", end_reason: "error" });
      expect(read("call_no_node")).toEqual({ status: "canceled", end_reason: "error" });
    } else {
      // PostgreSQL: that node heartbeat a second ago and may hold its calls (and the row without a node):
      // the loss sweep ends them once it is silent past the bound.
      expect(dead.lost_by).toBeNull();
      expect(read("call_dead_node")).toEqual({ status: "ringing", end_reason: null });
      expect(read("call_no_node")).toEqual({ status: "ringing", end_reason: null });
    }
  } finally {
    await second.stop();
  }
}, 60_000);
