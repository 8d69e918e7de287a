// Three Parley processes on one PostgreSQL database, each running jobs, do each piece of work once:
// every webhook event reaches each endpoint subscribed to it once, whichever process claims the
// delivery, and an event whose change rolled back reaches none (the event, its deliveries and their
// jobs commit with the change or not at all); an endpoint's failures are counted by all of them
// without losing one; schedules due at one moment place one call each, and a cancel racing a run is
// answered by what happened.
import { SQL } from "bun";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";
import { ApiClient } from "../helpers/client.ts";
import { registerUser } from "../helpers/fixtures.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { FROM_SOURCE, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { createTestContext } from "../helpers/server.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const EVENTS = 150;
const ENDPOINTS = ["/a", "/b", "/c"];

const url = freshDatabase();
const env = createTestContext({ databaseUrl: url }); // publishes, as the change's own process would; runs no jobs
const root = mkdtempSync(join(tmpdir(), "parley-pgnodes-"));
// Each answer takes a while, so no one runner gets through the queue before the others' next poll.
const receiver = startReceiver(async () => (await Bun.sleep(100), new Response("ok")));
let nodes: ServerProcess[] = [];

beforeAll(async () => {
  // Nodes share the instance key (endpoint secrets are sealed with it); each has a data dir of its own.
  nodes = await Promise.all(
    [0, 1, 2].map((n) => {
      const dataDir = join(root, `node${n}`);
      mkdirSync(dataDir, { mode: 0o700 });
      copyFileSync(env.ctx.dataDir.secretFile, join(dataDir, "instance.key"));
      return spawnServer(FROM_SOURCE, ["--data-dir", dataDir, "--database-url", url, "--allow-private-urls", "--rate-limit-per-minute", "100000"]);
    }),
  );
}, 60_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  receiver.stop();
  env.close();
  rmSync(root, { recursive: true, force: true });
});

test(`${EVENTS} events to ${ENDPOINTS.length} endpoints through three processes: each (event, endpoint) once; a rolled-back event never`, async () => {
  const api = new ApiClient(nodes[0].url);
  const user = await registerUser(api);
  for (const path of ENDPOINTS) {
    const created = await api.post("/v1/webhooks", { url: receiver.url.replace(/\/hook$/, path), events: ["payment.succeeded"] }, { token: user.token });
    expect(created.status).toBe(201);
  }
  const { ctx } = env;
  const publish = (n: number) => publishWorkspaceEvent(ctx, { workspaceId: user.workspaceId, type: "payment.succeeded", data: { payment_id: `txn_${n}` } });

  let rolledBack = "";
  expect(() =>
    ctx.sqlite.transaction(() => {
      rolledBack = publish(-1).eventId;
      throw new Error("the change failed after publishing");
    })(),
  ).toThrow("the change failed");
  // All at once, so the three runners find them at their next poll and compete for them.
  const published = ctx.sqlite.transaction(() => Array.from({ length: EVENTS }, (_, n) => publish(n).eventId))();
  // Another connection holds the first deliveries' jobs past every runner's next poll (each second), as a
  // claimer slower to commit would: claims that waited on those rows must not all take them once they are let go.
  const locker = new SQL(url);
  const held = await locker.reserve();
  await held.unsafe("BEGIN");
  await held.unsafe("SELECT id FROM jobs WHERE type = 'webhooks.deliver' AND state = 'available' ORDER BY run_at, id LIMIT 40 FOR UPDATE");
  await Bun.sleep(1_500);
  await held.unsafe("ROLLBACK");
  held.release();
  await locker.close();

  const expected = EVENTS * ENDPOINTS.length;
  await receiver.waitFor(expected, 30_000);
  await Bun.sleep(1_500); // a second delivery of any of them would arrive meanwhile (the runners poll every second)
  const deliveries = new Map<string, number>();
  for (const request of receiver.requests) {
    const key = `${request.headers["webhook-id"]} ${request.path}`;
    deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
  }
  expect([...deliveries].filter(([, count]) => count > 1)).toEqual([]);
  expect(receiver.requests).toHaveLength(expected);
  expect(new Set(receiver.requests.map((r) => r.headers["webhook-id"]))).toEqual(new Set(published));
  expect(receiver.requests.some((r) => r.headers["webhook-id"] === rolledBack)).toBe(false);
}, 60_000);

test("an endpoint failing under three processes at once counts every failure (its circuit breaker opens on the true count)", async () => {
  const api = new ApiClient(nodes[2].url);
  const user = await registerUser(api, "failing");
  const down = startReceiver(() => new Response("down", { status: 500 }));
  const created = await api.post("/v1/webhooks", { url: down.url, events: ["payment.succeeded"] }, { token: user.token });
  expect(created.status).toBe(201);
  const endpointId = created.body.id as string;
  // Another connection holds the endpoint's row (not its key, so deliveries may still be added for it)
  // while every process claims a batch, sends it, and waits to count its failures on that row.
  const locker = new SQL(url);
  const held = await locker.reserve();
  await held.unsafe("BEGIN");
  await held.unsafe(`SELECT id FROM webhook_endpoints WHERE id = '${endpointId}' FOR NO KEY UPDATE`);
  const { ctx } = env;
  ctx.sqlite.transaction(() => {
    for (let n = 0; n < 100; n++) publishWorkspaceEvent(ctx, { workspaceId: user.workspaceId, type: "payment.succeeded", data: { payment_id: `txn_down_${n}` } });
  })();
  await Bun.sleep(2_500);
  await held.unsafe("ROLLBACK");
  held.release();
  await locker.close();
  await Bun.sleep(1_500); // the waiting counts commit; later deliveries find the breaker open and wait

  const attempts = (ctx.sqlite.prepare("SELECT count(*) AS n FROM webhook_attempts WHERE endpoint_id = ?").get(endpointId) as { n: number }).n;
  const endpoint = (await api.get(`/v1/webhooks/${endpointId}`, { token: user.token })).body;
  expect(attempts).toBeGreaterThan(32); // more than one process's batch (32 each) waited on the row at once
  expect(endpoint.health).toMatchObject({ consecutive_failures: attempts, breaker: "open" });
  down.stop();
}, 60_000);

// Fictional destination that is busy: the call ends at once.
const BUSY = "+14155550101";

async function must(res: Promise<{ status: number; body: any; text: string }>) {
  const r = await res;
  if (r.status !== 200 && r.status !== 201) throw new Error(`${r.status} ${r.text}`);
  return r.body;
}

/** A workspace whose agent has a number to call from. */
async function callingWorkspace(api: ApiClient, label: string) {
  const user = await registerUser(api, label);
  const as = { token: user.token };
  const agent = await must(api.post("/v1/agents", { name: "Reminders", first_message: "Hi, this is your reminder." }, as));
  const number = await must(api.post("/v1/phone-numbers/buy", { area_code: "415" }, as));
  await must(api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, as));
  return { as, agent };
}

/** Calls placed for a schedule, from the table. */
function callsOf(scheduleId: string): number {
  return (env.ctx.sqlite.prepare("SELECT metadata FROM calls").all() as { metadata: string }[]).filter((row) => JSON.parse(row.metadata).schedule_id === scheduleId).length;
}


test("schedules due at one moment, one-off and cron, fire once each: one run and one call per fire time", async () => {
  const api = new ApiClient(nodes[1].url);
  const { as, agent } = await callingWorkspace(api, "scheduler");

  // A cron pattern firing at one second of each minute, 4 s from now; the one-offs at the same moment.
  const fireAt = Math.ceil((Date.now() + 4_000) / 1000) * 1000;
  const second = new Date(fireAt).getUTCSeconds();
  const ids: string[] = [];
  for (let n = 0; n < 10; n++) ids.push((await must(api.post("/v1/schedules", { agent_id: agent.id, to: BUSY, at: new Date(fireAt).toISOString() }, as))).id);
  for (let n = 0; n < 10; n++) ids.push((await must(api.post("/v1/schedules", { agent_id: agent.id, to: BUSY, cron: `${second} * * * * *`, timezone: "UTC" }, as))).id);
  const runsOf = async (id: string) => (await must(api.get(`/v1/schedules/${id}`, as))).runs as { run_at: string; status: string; call_id: string | null }[];
  for (const id of ids) expect((await must(api.get(`/v1/schedules/${id}`, as))).next_run_at).toBe(new Date(fireAt).toISOString());

  await Bun.sleep(Math.max(0, fireAt - Date.now()));
  for (const deadline = Date.now() + 20_000; ; await Bun.sleep(200)) {
    const pending = (await Promise.all(ids.map(runsOf))).filter((runs) => runs.length === 0).length;
    if (pending === 0) break;
    if (Date.now() > deadline) throw new Error(`${pending} schedules have not run`);
  }
  await Bun.sleep(1_500); // a second run of any of them would show meanwhile (the runners poll every second)

  for (const id of ids) {
    const runs = await runsOf(id);
    expect({ id, runs: runs.map((r) => [r.run_at, r.status]), calls: callsOf(id) }).toEqual({ id, runs: [[new Date(fireAt).toISOString(), "dispatched"]], calls: 1 });
  }
}, 60_000);

test("a cancel on one process while another runs the schedule: either no call and canceled, or the call and 409", async () => {
  const { as, agent } = await callingWorkspace(new ApiClient(nodes[0].url), "canceler");
  const fireAt = Math.ceil((Date.now() + 2_000) / 1000) * 1000;
  const schedule = await must(new ApiClient(nodes[0].url).post("/v1/schedules", { agent_id: agent.id, to: BUSY, at: new Date(fireAt).toISOString() }, as));
  // Another connection holds the schedule's row: the run that comes due waits on it, then the cancel does.
  const locker = new SQL(url);
  const held = await locker.reserve();
  await held.unsafe("BEGIN");
  await held.unsafe(`SELECT id FROM schedules WHERE id = '${schedule.id}' FOR NO KEY UPDATE`);
  const waiting = async (count: number) => {
    for (const deadline = Date.now() + 15_000; Date.now() < deadline; await Bun.sleep(50)) {
      const [row] = await held.unsafe("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
      if (row.n >= count) return;
    }
    throw new Error(`fewer than ${count} statements wait on the schedule`);
  };
  await waiting(1);
  // The process running the schedule waits on the row with its event loop (statements are synchronous):
  // the cancel goes to one that still answers.
  const answers = async (node: ServerProcess) => fetch(`${node.url}/v1/health`, { signal: AbortSignal.timeout(2_000) }).then(() => true, () => false);
  const free = (await Promise.all(nodes.map(async (node) => ((await answers(node)) ? node : null)))).filter((node) => node !== null);
  expect(free).toHaveLength(2);
  const cancel = new ApiClient(free[0]!.url).delete(`/v1/schedules/${schedule.id}`, as);
  await waiting(2);
  await held.unsafe("ROLLBACK");
  held.release();
  await locker.close();

  const canceled = await cancel;
  const after = await must(new ApiClient(free[1]!.url).get(`/v1/schedules/${schedule.id}`, as));
  const outcome = { cancel: canceled.status, status: after.status, runs: after.runs.map((r: { status: string }) => r.status), calls: callsOf(schedule.id) };
  // The run waited first, so it wins; either way the answer must match what happened.
  expect(outcome).toEqual(canceled.status === 200 ? { cancel: 200, status: "canceled", runs: [], calls: 0 } : { cancel: 409, status: "dispatched", runs: ["dispatched"], calls: 1 });
  expect(canceled.status).toBe(409);
}, 60_000);
