// A cluster of 1, 2 and 3 real nodes (`parley serve` processes from source) on one PostgreSQL server it
// starts itself (Debian's binaries, fsync on, as modes.ts): webhook deliveries/s, the campaign dial rate
// and API requests/s at each size, with the CPU the nodes (and PostgreSQL) spent per unit of work, read
// from /proc/<pid>/stat before and after (on a small box the nodes share its cores, so throughput stops
// scaling where the cores run out; the CPU per unit says how far more boxes would take it). Then the
// failover time: a node holding live calls and running jobs is killed -9, and the clock runs until a
// survivor has ended its calls and its jobs have run elsewhere.
// With --rounds N the sizes take turns N times (so the box's mood falls on all of them) and the table
// shows medians, with each figure's lowest and highest run.
// Usage: bun scripts/bench/cluster.ts [--nodes 1,2,3] [--rounds 1] [--webhooks 3000] [--campaigns 3]
//        [--contacts 600] [--seconds 5] [--connections 48] [--failover-calls 10]
import type { Subprocess } from "bun";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { closeParley, createParley, type Parley } from "../../src/server.ts";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";
import { startPostgres, type PostgresServer } from "../../test/helpers/postgres.ts";
import { API_SCENARIOS, NO_RATE_LIMITS, seedWorkspace, type Seeded } from "./api-scenarios.ts";
import { spawnParley } from "./spawn-parley.ts";
import { median } from "./stats.ts";
import { runWrk, wrkAvailable } from "./wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    nodes: { type: "string", default: "1,2,3" },
    rounds: { type: "string", default: "1" },
    webhooks: { type: "string", default: "3000" },
    campaigns: { type: "string", default: "3" },
    contacts: { type: "string", default: "600" },
    seconds: { type: "string", default: "5" },
    connections: { type: "string", default: "48" },
    "failover-calls": { type: "string", default: "10" },
  },
});
const SIZES = values.nodes.split(",").map(Number);
const ROUNDS = Number(values.rounds);
const WEBHOOKS = Number(values.webhooks);
const CAMPAIGNS = Number(values.campaigns);
const CONTACTS = Number(values.contacts);
const SECONDS = Number(values.seconds);
const CONNECTIONS = Number(values.connections);
const FAILOVER_CALLS = Number(values["failover-calls"]);
if (!wrkAvailable()) throw new Error("wrk is not installed: apt-get install wrk");

// ---------------------------------------------------------------- CPU from /proc

const TICK_MS = 10; // USER_HZ is 100 on Linux
/** CPU ms (user + system, all threads) a process has used so far; 0 once it is gone. */
function cpuMs(pid: number): number {
  try {
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return 0;
  }
}

/** The PostgreSQL server's processes: the postmaster and every child (backends, writers). */
function postgresPids(server: PostgresServer): number[] {
  const postmaster = Number(readFileSync(join(server.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        return Number(readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]) === postmaster;
      } catch {
        return false;
      }
    })
    .map(Number);
  return [postmaster, ...children];
}

/** CPU ms each node and PostgreSQL spend while `work` runs (backends that come and go during it are missed: connections are long-lived). */
async function measured<T>(nodes: Node[], work: () => Promise<T>): Promise<{ result: T; nodesMs: number[]; postgresMs: number }> {
  const pg = postgresPids(postgres);
  const before = nodes.map((node) => cpuMs(node.pid));
  const pgBefore = pg.map(cpuMs);
  const result = await work();
  return { result, nodesMs: nodes.map((node, i) => cpuMs(node.pid) - before[i]), postgresMs: pg.reduce((sum, pid, i) => sum + Math.max(0, cpuMs(pid) - pgBefore[i]), 0) };
}

// ---------------------------------------------------------------- nodes

interface Node {
  name: string;
  url: string;
  pid: number;
  process: Subprocess;
}

const postgres = startPostgres({ settings: { fsync: "on", full_page_writes: "on" } });
const temp = mkdtempSync(join(tmpdir(), "parley-bench-cluster-"));
let running: Node[] = [];
const stopAll = async () => {
  for (const node of running) node.process.kill();
  await Promise.all(running.map((node) => node.process.exited));
  running = [];
};
process.on("SIGINT", () => void stopAll().then(() => (postgres.stop(), rmSync(temp, { recursive: true, force: true }), process.exit(130))));

let clusters = 0;
/** `count` nodes on a fresh database, sharing the first one's instance key (as README "Running a cluster" says). */
async function startCluster(count: number): Promise<{ nodes: Node[]; databaseUrl: string; keyFile: string }> {
  const name = `cluster_${count}_${++clusters}`;
  postgres.sql(`CREATE DATABASE ${name}`);
  const databaseUrl = postgres.url(name);
  const dirs = Array.from({ length: count }, (_, i) => join(temp, `${name}-node${i + 1}`));
  const start = async (i: number): Promise<Node> => {
    const { process: child, url } = await spawnParley(dirs[i], NO_RATE_LIMITS, { args: ["--database-url", databaseUrl, "--allow-private-urls", "--node-name", `node-${i + 1}`, "--log-level", "warn"] });
    return { name: `node-${i + 1}`, url, pid: child.pid, process: child };
  };
  const first = await start(0);
  for (const dir of dirs.slice(1)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    copyFileSync(join(dirs[0], "instance.key"), join(dir, "instance.key"));
  }
  const nodes = [first, ...(await Promise.all(dirs.slice(1).map((_, i) => start(i + 1))))];
  running = nodes;
  return { nodes, databaseUrl, keyFile: join(dirs[0], "instance.key") };
}

async function request(base: string, token: string, method: string, path: string, body?: unknown, contentType = "application/json"): Promise<any> {
  const response = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": contentType }) }, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

/** A context on the cluster's database in this process, for publishing events as a change would (it runs no jobs). */
function publisher(databaseUrl: string, keyFile: string): Parley {
  const dataDir = join(temp, `publisher-${Date.now()}`);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  copyFileSync(keyFile, join(dataDir, "instance.key"));
  return createParley({ config: buildConfig({ host: "127.0.0.1", port: "0", dataDir, databaseUrl, logLevel: "error" }), logger: createLogger("error") });
}

async function until(check: () => Promise<boolean> | boolean, ms: number, what: string): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > ms) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await Bun.sleep(50);
  }
  return performance.now() - started;
}

// ---------------------------------------------------------------- figures

interface Row {
  label: string;
  unit: string;
  bySize: Map<number, number[]>;
}
const rows = new Map<string, Row>();
function record(label: string, unit: string, size: number, value: number): void {
  const row = rows.get(label) ?? { label, unit, bySize: new Map() };
  rows.set(label, row);
  row.bySize.set(size, [...(row.bySize.get(size) ?? []), value]);
  console.log(`  ${size} node${size > 1 ? "s" : ""}  ${label}: ${value.toFixed(value < 10 ? 2 : value < 100 ? 1 : 0)} ${unit}`);
}

/** Throughput and its CPU: the work per second, CPU ms per `per` units on the nodes (all together) and on PostgreSQL. */
function recordWork(size: number, label: string, unit: string, per: number, perLabel: string, units: number, ms: number, cpu: { nodesMs: number[]; postgresMs: number }): void {
  const nodesMs = cpu.nodesMs.reduce((a, b) => a + b, 0);
  record(label, unit, size, units / (ms / 1000));
  record(`${label}: node CPU per ${perLabel}`, "ms", size, (nodesMs / units) * per);
  record(`${label}: PostgreSQL CPU per ${perLabel}`, "ms", size, (cpu.postgresMs / units) * per);
  console.log(`    node CPU shares: ${cpu.nodesMs.map((n) => `${(n / 1000).toFixed(1)} s`).join(" / ")} in ${(ms / 1000).toFixed(1)} s`);
}

// ---------------------------------------------------------------- benches

async function api(size: number, nodes: Node[], seeded: Seeded): Promise<void> {
  for (const scenario of API_SCENARIOS.slice(0, 2)) {
    const runs = nodes.map((node) => ({ url: node.url + scenario.path(seeded), headers: { authorization: `Bearer ${seeded.apiKey}` }, connections: Math.max(1, Math.round(CONNECTIONS / nodes.length)) }));
    await Promise.all(runs.map((run) => runWrk({ ...run, seconds: 1 })));
    const started = performance.now();
    const { result, ...cpu } = await measured(nodes, () => Promise.all(runs.map((run) => runWrk({ ...run, seconds: SECONDS }))));
    const ms = performance.now() - started;
    const errors = result.reduce((sum, r) => sum + r.errors, 0);
    if (errors) throw new Error(`${scenario.label}: ${errors} requests failed`);
    // wrk's own count over its own seconds; the CPU over the same window (wrk's start and end included).
    const requests = result.reduce((sum, r) => sum + r.requests, 0);
    recordWork(size, scenario.label, "req/s", 1000, "1,000 requests", requests, ms, cpu);
  }
}

async function webhooks(size: number, nodes: Node[], context: Parley, workspaceId: string, receiverUrl: string, token: string): Promise<void> {
  await request(nodes[0].url, token, "POST", "/v1/webhooks", { url: `${receiverUrl}/hook`, events: ["call.completed"] });
  await fetch(`${receiverUrl}/reset`, { method: "POST" });
  const received = async () => ((await (await fetch(`${receiverUrl}/stats`)).json()) as { received: number }).received;
  const { result: ms, ...cpu } = await measured(nodes, async () => {
    context.sqlite.transaction(() => {
      for (let i = 0; i < WEBHOOKS; i++) publishWorkspaceEvent(context, { workspaceId, type: "call.completed", data: { sent_at: Date.now() } });
    })();
    return until(async () => (await received()) >= WEBHOOKS, 600_000, `${WEBHOOKS} deliveries`);
  });
  recordWork(size, `webhooks: burst of ${WEBHOOKS.toLocaleString("en-US")}`, "deliveries/s", 1000, "1,000 webhooks", WEBHOOKS, ms, cpu);
}

async function campaigns(size: number, nodes: Node[], token: string, agentId: string): Promise<void> {
  const ids: string[] = [];
  for (let c = 0; c < CAMPAIGNS; c++) {
    const campaign = await request(nodes[c % nodes.length].url, token, "POST", "/v1/campaigns", {
      name: `Bench ${c}`,
      agent_id: agentId,
      concurrency: 100,
      calls_per_minute: 6000,
      simulation: { behaviour: "hang_up", hang_up_after_ms: 200, ring_ms: 20 },
      retry: { on: [], max_attempts: 1, delay_minutes: 1 },
    });
    // Fictional 555 numbers, none in two campaigns.
    const phones = Array.from({ length: CONTACTS }, (_, i) => c * CONTACTS + i).map((k) => `+1${["415", "212", "303"][k % 3]}555${1000 + Math.floor(k / 3)}`);
    const upload = await request(nodes[0].url, token, "POST", `/v1/campaigns/${campaign.id}/upload`, `phone\n${phones.join("\n")}\n`, "text/csv");
    if (upload.rejected) throw new Error(`the upload rejected ${upload.rejected} contacts: ${JSON.stringify(upload.rejected_by_reason)}`);
    ids.push(campaign.id);
  }
  const calls = CAMPAIGNS * CONTACTS;
  const { result: ms, ...cpu } = await measured(nodes, async () => {
    for (const [c, id] of ids.entries()) await request(nodes[c % nodes.length].url, token, "POST", `/v1/campaigns/${id}/start`);
    return until(async () => (await Promise.all(ids.map((id) => request(nodes[0].url, token, "GET", `/v1/campaigns/${id}`)))).every((c) => c.status !== "running"), 600_000, "the campaigns to complete");
  });
  recordWork(size, `campaign dialling (${CAMPAIGNS} × ${CONTACTS} contacts)`, "calls/s", 1, "dialled call", calls, ms, cpu);
}

/** kill -9 a node holding live calls and running jobs; seconds until its calls are ended and its jobs have run elsewhere. */
async function failover(size: number, nodes: Node[], context: Parley, token: string, workspaceId: string, number: string): Promise<void> {
  const victim = nodes[nodes.length - 1];
  // Deliveries that take a while at a receiver of this process: every node holds a batch when the kill comes.
  const arrivals = new Map<string, number>();
  let open = 0;
  const slow = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(incoming) {
      const id = incoming.headers.get("webhook-id") ?? "";
      arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
      open++;
      await Bun.sleep(1_500);
      open--;
      return new Response(null, { status: 204 });
    },
  });
  try {
    await request(nodes[0].url, token, "POST", "/v1/webhooks", { url: `http://127.0.0.1:${slow.port}/slow`, events: ["payment.succeeded"] });
    // Calls on the victim: softphones dialled into its own address, talking silence.
    const phones = Array.from({ length: FAILOVER_CALLS }, () => {
      const socket = new WebSocket(`${victim.url.replace(/^http/, "ws")}/v1/telephony/simulated/softphone?to=${encodeURIComponent(number)}`, { headers: { authorization: `Bearer ${token}` } } as unknown as string[]);
      let answered = false;
      socket.addEventListener("message", (event) => typeof event.data === "string" && JSON.parse(event.data).type === "answered" && (answered = true));
      return { socket, answered: () => answered };
    });
    const silence = new Uint8Array(160).fill(0xff);
    const talking = setInterval(() => phones.forEach((p) => p.socket.readyState === WebSocket.OPEN && p.socket.send(silence)), 20);
    await until(() => phones.every((p) => p.answered()), 30_000, "the calls on the node to be answered");
    const slowEvents = size * 40;
    context.sqlite.transaction(() => {
      for (let i = 0; i < slowEvents; i++) publishWorkspaceEvent(context, { workspaceId, type: "payment.succeeded", data: { payment_id: `txn_${i}` } });
    })();
    await until(() => open >= Math.min(slowEvents, size * 30), 30_000, "every node to hold deliveries");
    const [victimRow] = await postgresRows(context, "SELECT id FROM nodes WHERE name = ? AND stopped_at IS NULL ORDER BY started_at DESC LIMIT 1", [victim.name]);
    const liveOnVictim = () => postgresRows(context, "SELECT count(*) AS n FROM calls WHERE node_id = ? AND status IN ('ringing', 'in_progress')", [victimRow.id])[0].n as number;
    const undelivered = () => postgresRows(context, "SELECT count(*) AS n FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE e.type = 'payment.succeeded' AND d.state <> 'delivered'", [])[0].n as number;
    const calls = liveOnVictim();

    victim.process.kill("SIGKILL");
    await victim.process.exited;
    running = running.filter((node) => node !== victim);
    const killedAt = performance.now();
    clearInterval(talking);
    // The survivors finish their own deliveries within a round or two; what remains after that was the victim's.
    await Bun.sleep(4_000);
    const heldByVictim = undelivered();
    const seconds = async (check: () => boolean, what: string) => {
      try {
        await until(check, 120_000, what);
        return (performance.now() - killedAt) / 1000;
      } catch {
        return Number.NaN;
      }
    };
    const [callsEnded, jobsResumed] = await Promise.all([seconds(() => liveOnVictim() === 0, "the calls to end"), seconds(() => undelivered() === 0, "the jobs to run elsewhere")]);
    const ends = postgresRows(context, "SELECT status, end_reason, count(*) AS n FROM calls WHERE node_id = ? GROUP BY status, end_reason", [victimRow.id]);
    console.log(`    failover: ${calls} live calls and ${heldByVictim} deliveries held by ${victim.name}; its calls now ${ends.map((e) => `${e.status}/${e.end_reason} ${e.n}`).join(", ")}`);
    record(`failover: kill -9 → its ${FAILOVER_CALLS} calls ended`, "s", size, callsEnded);
    record("failover: kill -9 → its running deliveries done elsewhere", "s", size, jobsResumed);
    for (const phone of phones) phone.socket.close();
  } finally {
    slow.stop(true);
  }
}

function postgresRows(context: Parley, sql: string, params: unknown[]): any[] {
  return context.sqlite.prepare(sql).all(...params) as any[];
}

// ---------------------------------------------------------------- run and report

const receiver = Bun.spawn([process.execPath, join(import.meta.dir, "receiver.ts"), "0"], { stdout: "pipe", stderr: "inherit" });
const receiverUrl = `http://127.0.0.1:${new TextDecoder().decode((await receiver.stdout.getReader().read()).value).trim()}`;
const load = async () => (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
const loadBefore = await load();
try {
  for (let round = 1; round <= ROUNDS; round++) for (const size of SIZES) {
    console.log(`${size} node${size > 1 ? "s" : ""}, round ${round}/${ROUNDS}`);
    const { nodes, databaseUrl, keyFile } = await startCluster(size);
    const context = publisher(databaseUrl, keyFile);
    try {
      const seeded = await seedWorkspace(nodes[0].url);
      const me = await request(nodes[0].url, seeded.apiKey, "GET", "/v1/auth/me");
      const workspaceId = me.workspace.id as string;
      const agent = await request(nodes[0].url, seeded.apiKey, "POST", "/v1/agents", { name: "Dialer", first_message: "Hello, this is a reminder from Acme." });
      const number = await request(nodes[0].url, seeded.apiKey, "POST", "/v1/phone-numbers/buy", { area_code: "415" });
      await request(nodes[0].url, seeded.apiKey, "POST", `/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id });
      await api(size, nodes, seeded);
      await webhooks(size, nodes, context, workspaceId, receiverUrl, seeded.apiKey);
      await campaigns(size, nodes, seeded.apiKey, agent.id);
      if (size > 1) await failover(size, nodes, context, seeded.apiKey, workspaceId, number.number);
    } finally {
      closeParley(context);
      await stopAll();
    }
  }
} finally {
  receiver.kill();
  postgres.stop();
  rmSync(temp, { recursive: true, force: true });
}
const loadAfter = await load();

console.log(`\n== cluster: ${SIZES.join(", ")} nodes on one PostgreSQL (loopback, fsync on), ${ROUNDS > 1 ? `medians of ${ROUNDS} rounds (lowest–highest)` : "one round"}; ${navigator.hardwareConcurrency} cores shared by the nodes, PostgreSQL and the load; load average ${loadBefore} before, ${loadAfter} after`);
const header = ["figure", ...SIZES.map((n) => `${n} node${n > 1 ? "s" : ""}`), ...SIZES.slice(1).map((n) => `${n}/${SIZES[0]}`)];
const digits = (n: number) => n.toFixed(n < 10 ? 2 : n < 100 ? 1 : 0);
const medianOf = (runs: number[] | undefined) => (runs?.length ? median(runs) : undefined);
const format = (runs: number[] | undefined, unit: string) => {
  if (!runs?.length) return "–";
  if (runs.some(Number.isNaN)) return "not within 120 s";
  const spread = runs.length > 1 ? ` (${digits(Math.min(...runs))}–${digits(Math.max(...runs))})` : "";
  return `${digits(median(runs))} ${unit}${spread}`;
};
const table = [...rows.values()].map((row) => {
  const base = medianOf(row.bySize.get(SIZES[0]));
  return [row.label, ...SIZES.map((n) => format(row.bySize.get(n), row.unit)), ...SIZES.slice(1).map((n) => (base && medianOf(row.bySize.get(n)) !== undefined ? (medianOf(row.bySize.get(n))! / base).toFixed(2) : ""))];
});
const widths = header.map((h, i) => Math.max(h.length, ...table.map((r) => r[i].length)));
for (const row of [header, widths.map((w) => "-".repeat(w)), ...table]) console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
