// Three Parley processes on one PostgreSQL database deliver webhooks: every event reaches each endpoint
// subscribed to it once, whichever process's runner claims the delivery; an event whose change rolled
// back reaches none (the event, its deliveries and their jobs commit with the change or not at all).
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
