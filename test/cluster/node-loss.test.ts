// Three Parley processes on one PostgreSQL database, and one of them lost (issue 36, "Node loss during
// calls"): node 1 holds 20 live calls and a webhook delivery in flight when it stops (SIGSTOP, then
// kill -9). Within the bound a survivor ends those 20 calls `failed`/`node_lost`, each call.ended sent
// once, and its delivery runs on another node at once (not after its 120 s lease); the calls of nodes 2
// and 3 are untouched and still answer their controls. Health and the live-node gauge show the cluster;
// a cluster-wide sweep runs once per fire time while a per-node one runs on each. A node found lost while
// it was only stalled (SIGSTOP past the bound, then SIGCONT) cuts its calls without writing their end
// again and exits (code 3) with one line saying so.
import { SQL } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";
import { callingAgent } from "../helpers/campaigns.ts";
import { turnTaking } from "../helpers/call-driver.ts";
import { ApiClient } from "../helpers/client.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { FROM_SOURCE, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { createTestContext } from "../helpers/server.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const CALLS = 20;
/** The bound README states: a node silent 15 s is claimed at the next 5 s look. */
const BOUND_MS = 30_000;

interface Node extends ServerProcess {
  id: string;
  api: ApiClient;
  metrics: string;
}

const url = freshDatabase();
const db = new SQL(url);
const env = createTestContext({ databaseUrl: url }); // publishes an event as a change's own process would; runs no jobs
const root = mkdtempSync(join(tmpdir(), "parley-node-loss-"));
const events = startReceiver();
// The first delivery hangs (the node that sends it is stopped mid-request); any later one is answered.
const slow = startReceiver((_request, index) => (index === 0 ? new Promise<Response>(() => {}) : new Response("ok")));
const nodes: Node[] = [];
let key = "";
let agentId = "";
let workspaceId = "";

async function startNode(n: number): Promise<Node> {
  const dataDir = join(root, `node${n}`);
  mkdirSync(dataDir, { mode: 0o700 });
  copyFileSync(env.ctx.dataDir.secretFile, join(dataDir, "instance.key"));
  // A 120 s lease: a lost node's job that waited for its lease would miss the bound by far.
  const args = ["--data-dir", dataDir, "--database-url", url, "--allow-private-urls", "--job-lease-seconds", "120", "--metrics-listen", "127.0.0.1:0", "--node-name", `node-${n}`];
  const server = await spawnServer(FROM_SOURCE, args, { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" } });
  const api = new ApiClient(server.url);
  const health = await api.get("/v1/health");
  return { ...server, api, id: health.body.node.id, metrics: /Metrics:\s+(\S+)/.exec(server.stderr())![1] };
}

/** The calls as the database has them, by id. */
async function callRows(ids: string[]) {
  return (await db`SELECT id, status, end_reason, node_id, duration_ms FROM calls WHERE id IN ${db(ids)}`) as { id: string; status: string; end_reason: string | null; node_id: string; duration_ms: number | null }[];
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value).slice(0, 500)} after ${timeoutMs} ms`);
    await Bun.sleep(100);
  }
}

async function place(api: ApiClient, n: number): Promise<string> {
  const placed = await api.post("/v1/calls/outbound", { agent_id: agentId, to: `+1212555${String(200 + n).padStart(4, "0")}`, simulation: { behaviour: "silent" } }, { token: key });
  expect(placed.status).toBe(201);
  return placed.body.id;
}

async function metric(node: Node, line: RegExp): Promise<number> {
  const text = await (await fetch(node.metrics)).text();
  const match = line.exec(text);
  return match ? Number(match[1]) : NaN;
}

let lostCalls: string[] = [];

beforeAll(async () => {
  // Node 1 alone first: it places the 20 calls and takes the delivery.
  nodes.push(await startNode(1));
  const [first] = nodes;
  const owner = await registerUser(first.api, "loss");
  key = (await createKey(first.api, owner.token, "admin")).secret;
  // The calls stay up: a silent callee, and turn-taking that neither reminds nor gives up for minutes.
  const agent = await callingAgent(first.api, key, "415", {
    first_message: "Hi.",
    turn_taking: turnTaking({ silence: { reminder_after_s: 600, reminder_message: "Still there?", timeout_s: 900 }, max_duration_s: 1200 }),
    webhook_url: events.url,
    webhook_events: ["call.ended"],
  });
  agentId = agent.agentId;
  lostCalls = await Promise.all(Array.from({ length: CALLS }, (_, n) => place(first.api, n)));
  await until("node 1's calls answered", () => callRows(lostCalls), (rows) => rows.filter((r) => r.status === "in_progress" && r.node_id === first.id).length === CALLS, 60_000);
  const endpoint = await first.api.post("/v1/webhooks", { url: slow.url, events: ["payment.succeeded"] }, { token: key });
  expect(endpoint.status).toBe(201);
  workspaceId = owner.workspaceId;
  nodes.push(...(await Promise.all([startNode(2), startNode(3)])));
}, 120_000);

afterAll(async () => {
  for (const node of nodes) node.child.kill("SIGCONT");
  await Promise.all(nodes.map((node) => node.stop()));
  events.stop();
  slow.stop();
  env.close();
  await db.close();
  rmSync(root, { recursive: true, force: true });
});

test("health on every node names that node and the same three live nodes; the gauge counts them", async () => {
  // Nodes 2 and 3's start-up sweeps left node 1's calls alone: it is alive and holds them.
  expect((await callRows(lostCalls)).map((r) => r.status)).toEqual(lostCalls.map(() => "in_progress"));
  const ids = nodes.map((node) => node.id);
  expect(new Set(ids).size).toBe(3);
  for (const [n, node] of nodes.entries()) {
    const health = await node.api.get("/v1/health");
    expect(health.status).toBe(200);
    expect(health.body.node).toEqual({ id: node.id, name: `node-${n + 1}`, url: node.url });
    const live = health.body.cluster.live_nodes as { id: string; name: string; url: string; version: string; heartbeat_age_ms: number }[];
    expect(live[0].id).toBe(ids[0]); // oldest first (nodes 2 and 3 started together)
    expect(live.map((l) => l.id).sort()).toEqual([...ids].sort());
    expect(live.map((l) => l.name).sort()).toEqual(["node-1", "node-2", "node-3"]);
    for (const l of live) {
      expect(l.version).toBe(health.body.version);
      expect(l.heartbeat_age_ms).toBeGreaterThanOrEqual(0);
      expect(l.heartbeat_age_ms).toBeLessThan(15_000);
    }
    expect(await metric(node, /^parley_cluster_live_nodes (\d+)$/m)).toBe(3);
  }
}, 30_000);

test("a cluster-wide sweep runs on one node per fire time; a per-node sweep on every node", async () => {
  const read = (sweep: string) => Promise.all(nodes.map((node) => metric(node, new RegExp(`^parley_sweep_runs_total\\{sweep="${sweep}"\\} (\\d+)$`, "m"))));
  const sum = (before: number[], after: number[]) => after.reduce((total, value, i) => total + value - (before[i] || 0), 0);
  const [rechargesBefore, watchdogBefore] = [await read("automatic recharges"), await read("call watchdog")];
  await Bun.sleep(16_000); // three or four firings of each (every 5 s)
  const [rechargesAfter, watchdogAfter] = [await read("automatic recharges"), await read("call watchdog")];
  const once = sum(rechargesBefore, rechargesAfter);
  const everywhere = sum(watchdogBefore, watchdogAfter);
  console.log(`sweeps over 16 s on 3 nodes: automatic recharges ran ${once} times (cluster-wide), the call watchdog ${everywhere} times (per node)`);
  expect(once).toBeGreaterThanOrEqual(2);
  expect(once).toBeLessThanOrEqual(4);
  expect(everywhere).toBeGreaterThanOrEqual(3 * 3 - 1);
  const [row] = await db`SELECT fired_at, node_id FROM sweep_runs WHERE name = 'automatic recharges'`;
  expect(Number(row.fired_at) % 5000).toBe(0); // the firing's scheduled instant, the same on every node
  expect(nodes.map((node) => node.id)).toContain(row.node_id);
}, 40_000);

test(`node 1 lost with ${CALLS} live calls: all end failed/node_lost with call.ended once within the bound; its delivery runs elsewhere at once; nodes 2 and 3 keep theirs`, async () => {
  const [lost, second, third] = nodes;
  // A delivery node 1 is sending when it stops (nodes 2 and 3 held back a moment, so node 1 claims it).
  for (const node of [second, third]) node.child.kill("SIGSTOP");
  const eventId = publishWorkspaceEvent(env.ctx, { workspaceId, type: "payment.succeeded", data: { payment_id: "txn_in_flight" } }).eventId;
  await slow.waitFor(1, 5_000); // node 1 sends it, and waits for an answer that never comes
  for (const node of [second, third]) node.child.kill("SIGCONT");
  const [held] = await db`SELECT state, locked_by FROM jobs WHERE type = 'webhooks.deliver' AND state = 'executing'`;
  expect(held).toEqual({ state: "executing", locked_by: lost.id });
  // Calls that nodes 2 and 3 hold: placed while node 1 is stalled, so one of them dials each.
  lost.child.kill("SIGSTOP");
  const stoppedAt = Date.now();
  const kept = await Promise.all([0, 1, 2, 3].map((n) => place(second.api, 100 + n)));
  const keptRows = await until("nodes 2 and 3's calls answered", () => callRows(kept), (rows) => rows.filter((r) => r.status === "in_progress").length === kept.length, 10_000);
  expect(keptRows.every((r) => r.node_id === second.id || r.node_id === third.id)).toBe(true);
  lost.child.kill("SIGKILL");
  await lost.child.exited;
  const killedAt = Date.now();

  const rows = await until("node 1's calls ended", () => callRows(lostCalls), (rows) => rows.every((r) => r.status === "failed"), BOUND_MS + 10_000);
  const endedAt = Date.now();
  console.log(`node loss: ${CALLS} calls ended ${((endedAt - stoppedAt) / 1000).toFixed(1)} s after node 1 stopped (${((endedAt - killedAt) / 1000).toFixed(1)} s after its kill -9)`);
  expect(endedAt - stoppedAt).toBeLessThanOrEqual(BOUND_MS);
  expect(rows.map((r) => r.end_reason)).toEqual(lostCalls.map(() => "node_lost"));
  expect(rows.every((r) => r.duration_ms !== null && r.duration_ms >= 0)).toBe(true);
  const [node] = await db`SELECT lost_at, lost_by, stopped_at FROM nodes WHERE id = ${lost.id}`;
  expect(node.lost_at).not.toBeNull();
  expect(node.stopped_at).toBeNull();
  expect([second.id, third.id]).toContain(node.lost_by);

  // Each call.ended once, whichever node delivered it.
  await events.waitFor(CALLS, 20_000);
  await Bun.sleep(2_000); // a second delivery of any would arrive meanwhile
  const ended = events.requests.map((r) => JSON.parse(r.body)).filter((e) => e.type === "call.ended" && lostCalls.includes(e.call_id));
  expect(ended.map((e) => e.call_id).sort()).toEqual([...lostCalls].sort());
  expect(new Set(ended.map((e) => e.event_id)).size).toBe(CALLS);
  expect(ended.every((e) => e.data.status === "failed" && e.data.end_reason === "node_lost")).toBe(true);
  const timelines = (await db`SELECT call_id, count(*)::int AS n FROM call_events WHERE call_id IN ${db(lostCalls)} AND type = 'status' AND data::jsonb ->> 'status' = 'failed' GROUP BY call_id`) as { n: number }[];
  expect(timelines.map((t) => t.n)).toEqual(lostCalls.map(() => 1));

  // The delivery node 1 held is sent again by another node, long before its 120 s lease would have run out.
  await slow.waitFor(2, 5_000);
  const resent = slow.requests[1];
  expect(resent.headers["webhook-id"]).toBe(slow.requests[0].headers["webhook-id"]);
  expect(resent.headers["webhook-id"]).toBe(eventId);
  expect(resent.at - stoppedAt).toBeLessThanOrEqual(BOUND_MS + 2_000);
  const [job] = await db`SELECT state, attempt, locked_by, errors FROM jobs WHERE type = 'webhooks.deliver' AND payload::jsonb ->> 'delivery_id' IN (SELECT id FROM webhook_deliveries WHERE event_id = ${eventId})`;
  expect(job.state).toBe("completed");
  expect(Number(job.attempt)).toBe(2); // node 1's try counts
  expect(JSON.stringify(job.errors)).toContain("its node was lost");

  // Nodes 2 and 3's calls go on, and answer their controls on the node that holds them.
  expect((await callRows(kept)).map((r) => r.status)).toEqual(kept.map(() => "in_progress"));
  const ownerOf = (id: string) => (keptRows.find((r) => r.id === id)!.node_id === second.id ? second : third);
  expect((await ownerOf(kept[0]).api.post(`/v1/calls/${kept[0]}/say`, { text: "Still here." }, { token: key })).status).toBe(202);
  for (const id of kept) expect((await ownerOf(id).api.post(`/v1/calls/${id}/hangup`, {}, { token: key })).status).toBe(202);
  const hungUp = await until("nodes 2 and 3's calls hung up", () => callRows(kept), (rows) => rows.every((r) => r.status !== "in_progress"), 10_000);
  expect(hungUp.map((r) => r.end_reason)).toEqual(kept.map(() => "agent_hangup"));

  // Health on a survivor: two live nodes now.
  const health = await second.api.get("/v1/health");
  expect(health.body.cluster.live_nodes.map((l: { id: string }) => l.id).sort()).toEqual([second.id, third.id].sort());
  expect(await metric(second, /^parley_cluster_live_nodes (\d+)$/m)).toBe(2);
}, 90_000);

test("a node found lost while only stalled cuts its calls without ending them again, and exits to come back as a new node", async () => {
  const [, second, third] = nodes;
  const id = await place(third.api, 300);
  // Placed through node 3, dialled by whichever runner claimed it: make it node 2's for the test by stalling node 3 if need be.
  const [row] = await until("the call answered", () => callRows([id]), (rows) => rows[0]?.status === "in_progress", 10_000);
  const [stalled, survivor] = row.node_id === second.id ? [second, third] : [third, second];
  stalled.child.kill("SIGSTOP");
  await until("the stalled node's call ended by the survivor", () => callRows([id]), (rows) => rows[0].status === "failed", BOUND_MS + 10_000);
  stalled.child.kill("SIGCONT");
  const code = await Promise.race([stalled.child.exited, Bun.sleep(15_000).then(() => "still running")]);
  expect(code).toBe(3);
  const lines = stalled.stderr().split("\n").filter((line) => line.includes("was declared lost by"));
  expect(lines.some((line) => line.includes(`parley: this node (${stalled.id}) was declared lost by ${survivor.id}`))).toBe(true);
  const [ended] = await callRows([id]);
  expect(ended.end_reason).toBe("node_lost");
  const statuses = (await db`SELECT count(*)::int AS n FROM call_events WHERE call_id = ${id} AND type = 'status' AND data::jsonb ->> 'status' = 'failed'`) as { n: number }[];
  expect(statuses[0].n).toBe(1);
  const [node] = await db`SELECT lost_by, stopped_at FROM nodes WHERE id = ${stalled.id}`;
  expect(node).toMatchObject({ lost_by: survivor.id, stopped_at: null });
  await events.waitFor(CALLS + 5, 15_000);
  await Bun.sleep(1_000);
  expect(events.requests.map((r) => JSON.parse(r.body)).filter((e) => e.type === "call.ended" && e.call_id === id)).toHaveLength(1);
}, 60_000);
