// Webhook delivery benchmark: deliveries/s to a local receiver (its own process), enqueue→delivery
// latency at a steady rate, and the server's memory with 50,000 events queued for an endpoint that is down.
// Usage: bun scripts/bench/webhooks.ts [--burst 20000] [--rate 500] [--seconds 10] [--backlog 50000]
//        [--baseline <commit> [--rounds 3]]: the burst figure of that commit's code and of this one, alternating
//        [--database-url postgres://…]: on PostgreSQL (modes.ts runs both modes side by side)
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { createEndpoint } from "../../src/modules/webhooks/service.ts";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";
import { againstBaseline } from "./baseline.ts";
import { databaseMiB, databaseSettings } from "./database-mode.ts";
import { median } from "./stats.ts";

const args = Object.fromEntries(process.argv.slice(2).join(" ").split("--").filter(Boolean).map((a) => a.trim().split(/\s+/)));
const BURST = Number(args.burst ?? 20_000);
const RATE = Number(args.rate ?? 500);
const SECONDS = Number(args.seconds ?? 10);
const BACKLOG = Number(args.backlog ?? 50_000);

if (args.baseline) {
  // Deliveries/s depend on the box's mood: compare with older code in the same minutes, as a ratio.
  const revision = String(args.baseline);
  const shared = ["--burst", String(BURST), "--rate", String(RATE), "--seconds", String(SECONDS), "--backlog", String(BACKLOG)];
  const figure = (output: string) => Number(/→ (\d+) deliveries\/s/.exec(output)?.[1] ?? NaN);
  const { baseline, current } = await againstBaseline({ revision, script: "scripts/bench/webhooks.ts", args: shared, rounds: Number(args.rounds ?? 3), figure });
  console.log(`\n== webhook burst of ${BURST}: ${revision} ${median(baseline)} deliveries/s (median), this checkout ${median(current)} → ${(median(current) / median(baseline)).toFixed(2)}×`);
  process.exit(0);
}

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-webhooks-"));
const receiverProcess = Bun.spawn([process.execPath, join(import.meta.dir, "receiver.ts"), "0"], { stdout: "pipe", stderr: "inherit" });
const cleanup = () => {
  receiverProcess.kill();
  rmSync(dataDir, { recursive: true, force: true });
};
process.on("SIGINT", () => (cleanup(), process.exit(130)));

const receiverPort = await firstLine(receiverProcess.stdout);
const receiverUrl = `http://127.0.0.1:${receiverPort}`;

const config = buildConfig({ host: "127.0.0.1", port: "0", dataDir, allowPrivateUrls: "true", logLevel: "error", ...databaseSettings(args) });
const ctx = createParley({ config, logger: createLogger("error") });
const server = startServer(ctx);
const { workspace } = createUser(ctx, { email: "bench@example.test", passwordHash: "unused", name: "Bench" });
createEndpoint(ctx, workspace.id, { url: `${receiverUrl}/hook`, events: ["call.completed"] });

const now = () => performance.timeOrigin + performance.now();
const publish = (count: number) =>
  ctx.sqlite.transaction(() => {
    for (let i = 0; i < count; i++) publishWorkspaceEvent(ctx, { workspaceId: workspace.id, type: "call.completed", data: { sent_at: now() } });
  })();
const stats = async () => (await (await fetch(`${receiverUrl}/stats`)).json()) as { received: number; latencies: { p50: number; p99: number; max: number } };
const waitForReceived = async (count: number, timeoutMs = 600_000) => {
  const deadline = Date.now() + timeoutMs;
  while ((await stats()).received < count) {
    if (Date.now() > deadline) throw new Error(`receiver stuck at ${(await stats()).received}/${count}`);
    await Bun.sleep(20);
  }
};

// 1. Burst: everything queued at once, delivered as fast as the box allows.
console.log(`burst: ${BURST} events…`);
let started = performance.now();
for (let sent = 0; sent < BURST; sent += 500) publish(Math.min(500, BURST - sent));
const enqueueMs = performance.now() - started;
await waitForReceived(BURST);
const burstMs = performance.now() - started;
const burst = await stats();

// 2. Steady rate below saturation: latency from the event's transaction to the receiver.
await fetch(`${receiverUrl}/reset`, { method: "POST" });
console.log(`steady: ${RATE}/s for ${SECONDS} s…`);
started = performance.now();
let sent = 0;
while (performance.now() - started < SECONDS * 1000) {
  const due = Math.floor(((performance.now() - started) / 1000) * RATE) - sent;
  if (due > 0) {
    publish(due);
    sent += due;
  }
  await Bun.sleep(5);
}
await waitForReceived(sent);
const steady = await stats();

// 3. Backlog: an endpoint that refuses connections, 50,000 events for it.
console.log(`backlog: ${BACKLOG} events for an endpoint that is down…`);
const rssBefore = rssMiB();
createEndpoint(ctx, workspace.id, { url: "http://127.0.0.1:9/down", events: ["payment.succeeded"] });
started = performance.now();
for (let queued = 0; queued < BACKLOG; queued += 1000) {
  ctx.sqlite.transaction(() => {
    for (let i = 0; i < 1000; i++) publishWorkspaceEvent(ctx, { workspaceId: workspace.id, type: "payment.succeeded", data: {} });
  })();
  await Bun.sleep(0);
}
const backlogEnqueueMs = performance.now() - started;
await Bun.sleep(5000); // the breaker opens, deliveries settle into waiting
Bun.gc(true);
const rssAfter = rssMiB();
const pending = (ctx.sqlite.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE state = 'pending'").get() as { n: number }).n;
const dbMiB = databaseMiB(ctx);

await server.stop();
closeParley(ctx);
cleanup();

const f = (n: number) => n.toFixed(n < 10 ? 2 : 1);
console.log(`\n== webhooks on ${navigator.hardwareConcurrency} cores, receiver in its own process, bun ${Bun.version}; mode: ${ctx.dialect}`);
console.log(`burst     ${BURST} events: enqueued in ${f(enqueueMs)} ms (${Math.round(BURST / (enqueueMs / 1000))}/s), all delivered in ${f(burstMs / 1000)} s → ${Math.round(BURST / (burstMs / 1000))} deliveries/s`);
console.log(`          enqueue→delivery p50 ${f(burst.latencies.p50)} ms, p99 ${f(burst.latencies.p99)} ms (queueing included)`);
console.log(`steady    ${RATE}/s for ${SECONDS} s: enqueue→delivery p50 ${f(steady.latencies.p50)} ms, p99 ${f(steady.latencies.p99)} ms, max ${f(steady.latencies.max)} ms`);
console.log(`backlog   ${BACKLOG} events for a down endpoint: enqueued in ${f(backlogEnqueueMs / 1000)} s; ${pending} deliveries waiting;`);
console.log(`          server RSS ${f(rssBefore)} → ${f(rssAfter)} MiB; database ${f(dbMiB)} MiB`);

function rssMiB(): number {
  const line = readFileSync("/proc/self/status", "utf8").split("\n").find((l) => l.startsWith("VmRSS:"))!;
  return Number(line.split(/\s+/)[1]) / 1024;
}

async function firstLine(stream: ReadableStream<Uint8Array>): Promise<number> {
  const reader = stream.getReader();
  const { value } = await reader.read();
  return Number(new TextDecoder().decode(value).trim());
}
