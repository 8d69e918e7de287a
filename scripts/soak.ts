// Soak test (not in the default suite): mixed API traffic at a fixed rate plus live simulated calls
// kept going, for minutes, against a Parley it starts (its own process) or one at --url. Prints
// progress every 10 s and a summary; exits non-zero on any error or on RSS drift beyond ±10 % (the level
// of the last minute against the first minute after warm-up).
// Usage: bun scripts/soak.ts [--minutes 10] [--rps 200] [--calls 50] [--warmup 2] [--url http://…]
import type { Subprocess } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { spawnParley } from "./bench/spawn-parley.ts";
import { median } from "./bench/stats.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    minutes: { type: "string", default: "10" },
    rps: { type: "string", default: "200" },
    calls: { type: "string", default: "50" },
    warmup: { type: "string", default: "2" },
    url: { type: "string" },
  },
});
const MINUTES = Number(values.minutes);
const RPS = Number(values.rps);
const CALLS = Number(values.calls);
const WARMUP_MS = Number(values.warmup) * 60_000;

// ---------------------------------------------------------------- the server

let child = null as Subprocess | null;
const dataDir = mkdtempSync(join(tmpdir(), "parley-soak-"));

async function startServer(): Promise<string> {
  if (values.url) return values.url.replace(/\/$/, "");
  const started = await spawnParley(dataDir, { PARLEY_RATE_LIMIT_PER_MINUTE: "10000000", PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE: "10000000", PARLEY_LOG_LEVEL: "warn" });
  child = started.process;
  return started.url;
}

function rssMiB(): number | null {
  if (!child) return null;
  const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]) / 1024;
}

// ---------------------------------------------------------------- traffic

interface Stats {
  requests: number;
  errors: number;
  latencies: number[];
  /** Latencies by operation (method and path with ids and query left out), to tell which requests make the tail. */
  byOperation: Map<string, number[]>;
  lastErrors: string[];
}
const stats: Stats = { requests: 0, errors: 0, latencies: [], byOperation: new Map(), lastErrors: [] };

const operationOf = (method: string, path: string) => `${method} ${path.split("?")[0].replace(/\/[a-z]+_[A-Za-z0-9]{8,}/g, "/{id}")}`;

async function call(base: string, token: string, method: string, path: string, body: unknown, expected: number[]): Promise<any> {
  const started = performance.now();
  try {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    const took = performance.now() - started;
    stats.latencies.push(took);
    const operation = operationOf(method, path);
    if (!stats.byOperation.has(operation)) stats.byOperation.set(operation, []);
    stats.byOperation.get(operation)!.push(took);
    stats.requests++;
    if (!expected.includes(response.status)) {
      stats.errors++;
      stats.lastErrors.push(`${method} ${path} → ${response.status} ${text.slice(0, 160)}`);
      if (stats.lastErrors.length > 5) stats.lastErrors.shift();
      return null;
    }
    return text ? JSON.parse(text) : null;
  } catch (error) {
    stats.requests++;
    stats.errors++;
    stats.lastErrors.push(`${method} ${path} → ${(error as Error).message}`);
    return null;
  }
}

async function setUp(base: string) {
  const registered = (await (await fetch(`${base}/v1/auth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `soak-${Date.now()}@example.com`, password: "soak password 1" }) })).json()) as { access_token: string };
  const token = registered.access_token as string;
  const key = (await call(base, token, "POST", "/v1/api-keys", { name: "soak", scope: "admin" }, [201])).key as string;
  const agent = (await call(base, key, "POST", "/v1/agents", { name: "Soak", first_message: "Hello, you have reached the soak test." }, [201])).id as string;
  const kb = (await call(base, key, "POST", "/v1/knowledge-base", { name: "Soak notes" }, [201])).id as string;
  await call(base, key, "POST", `/v1/knowledge-base/${kb}/sources`, { type: "text", name: "Hours", text: "We open at nine and close at six on weekdays." }, [202]);
  const number = (await call(base, key, "POST", "/v1/phone-numbers/buy", { area_code: "415" }, [201])).id as string;
  await call(base, key, "POST", `/v1/phone-numbers/${number}/assign`, { agent_id: agent }, [200]);
  return { key, agent, kb };
}

/** One request of the mix, chosen by weight: mostly reads, some writes that clean up after themselves. */
async function oneRequest(base: string, ctx: { key: string; agent: string; kb: string }, n: number): Promise<void> {
  const { key, agent, kb } = ctx;
  switch (n % 10) {
    case 0:
    case 1:
      await call(base, key, "GET", "/v1/agents?limit=20", undefined, [200]);
      return;
    case 2:
      await call(base, key, "GET", `/v1/agents/${agent}`, undefined, [200]);
      return;
    case 3:
    case 4:
      await call(base, key, "GET", "/v1/calls?limit=20", undefined, [200]);
      return;
    case 5:
      await call(base, key, "GET", "/v1/auth/me", undefined, [200]);
      return;
    case 6:
      await call(base, key, "GET", `/v1/knowledge-base/${kb}/query?query=${encodeURIComponent("when do you open")}&top_k=3`, undefined, [200]);
      return;
    case 7: {
      const created = await call(base, key, "POST", "/v1/agents", { name: `Soak ${n}` }, [201]);
      if (created) {
        await call(base, key, "PATCH", `/v1/agents/${created.id}`, { first_message: "Changed." }, [200]);
        await call(base, key, "DELETE", `/v1/agents/${created.id}`, undefined, [204]);
      }
      return;
    }
    case 8: {
      const created = await call(base, key, "POST", "/v1/api-keys", { name: `soak ${n}`, scope: "read-only" }, [201]);
      if (created) await call(base, key, "DELETE", `/v1/api-keys/${created.id}`, undefined, [204]);
      return;
    }
    default: {
      const created = await call(base, key, "POST", "/v1/webhooks", { url: "https://hooks.example.com/soak", events: ["call.completed"] }, [201]);
      if (created) await call(base, key, "DELETE", `/v1/webhooks/${created.id}`, undefined, [204]);
    }
  }
}

// ---------------------------------------------------------------- calls kept live

let callsPlaced = 0;
let callsFailed = 0;
const live = new Set<string>();

async function keepCalling(base: string, ctx: { key: string; agent: string }, until: number): Promise<void> {
  while (performance.now() < until) {
    while (live.size < CALLS && performance.now() < until) {
      const placed = await call(base, ctx.key, "POST", "/v1/calls/outbound", {
        agent_id: ctx.agent,
        to: `+1212555${String(150 + (callsPlaced % 40)).padStart(4, "0")}`,
        simulation: { lines: ["What are your opening hours?", "Thanks, goodbye"], recognition: "simulated" },
      }, [201]);
      callsPlaced++;
      if (placed) live.add(placed.id);
    }
    await Bun.sleep(1000);
    for (const id of [...live]) {
      const current = await call(base, ctx.key, "GET", `/v1/calls/${id}`, undefined, [200]);
      if (!current || ["queued", "ringing", "in_progress"].includes(current.status)) continue;
      live.delete(id);
      if (current.status !== "completed") {
        callsFailed++;
        const timeline = await call(base, ctx.key, "GET", `/v1/calls/${id}/events?limit=100`, undefined, [200]);
        const errors = (timeline?.data ?? []).filter((event: { type: string }) => event.type === "error").map((event: { data: unknown }) => JSON.stringify(event.data));
        console.log(`  call ${id} ended ${current.status} (${current.end_reason ?? "no reason"}) ${errors.join(" ")}`);
      }
    }
  }
}

// ---------------------------------------------------------------- run

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function main(): Promise<number> {
  const base = await startServer();
  const ctx = await setUp(base);
  const started = performance.now();
  const until = started + MINUTES * 60_000;
  console.log(`soak: ${MINUTES} min at ${RPS} req/s of mixed traffic and ${CALLS} live simulated calls against ${base}`);
  const calling = keepCalling(base, ctx, until);
  let sent = 0;
  const rssSamples: number[] = [];
  let window = { requests: 0, at: started };
  const progress = setInterval(() => {
    const now = performance.now();
    const sorted = stats.latencies.slice(-5000).sort((a, b) => a - b);
    const rss = rssMiB();
    if (rss !== null && now - started >= WARMUP_MS) {
      rssSamples.push(rss);
    }
    console.log(
      `${((now - started) / 1000).toFixed(0).padStart(4)} s  ${(((stats.requests - window.requests) * 1000) / (now - window.at)).toFixed(0)} req/s  ` +
        `errors ${stats.errors}  p50 ${percentile(sorted, 50).toFixed(1)} ms  p99 ${percentile(sorted, 99).toFixed(1)} ms  ` +
        `live calls ${live.size} (placed ${callsPlaced}, not completed ${callsFailed})  RSS ${rss?.toFixed(0) ?? "?"} MiB`,
    );
    window = { requests: stats.requests, at: now };
  }, 10_000);
  // Open loop: requests leave on schedule whether or not earlier ones have answered.
  const inFlight = new Set<Promise<void>>();
  while (performance.now() < until) {
    const due = Math.floor(((performance.now() - started) * RPS) / 1000);
    while (sent < due) {
      const request = oneRequest(base, ctx, sent++).finally(() => inFlight.delete(request));
      inFlight.add(request);
    }
    await Bun.sleep(5);
  }
  await Promise.all(inFlight);
  await calling;
  clearInterval(progress);
  const sorted = stats.latencies.sort((a, b) => a - b);
  // RSS is a sawtooth (garbage collection, the allocator giving pages back): one sample against another
  // compares a peak with a trough. The level is the median of a minute's samples (every 10 s).
  const windowSamples = Math.min(6, Math.floor(rssSamples.length / 2));
  const firstLevel = windowSamples > 0 ? median(rssSamples.slice(0, windowSamples)) : null;
  const lastLevel = windowSamples > 0 ? median(rssSamples.slice(-windowSamples)) : null;
  const drift = firstLevel && lastLevel ? (lastLevel - firstLevel) / firstLevel : null;
  console.log(`\n== soak summary (${MINUTES} min)`);
  console.log(`requests ${stats.requests} (${(stats.requests / (MINUTES * 60)).toFixed(0)}/s), errors ${stats.errors}`);
  console.log(`latency p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)?.toFixed(1)} ms`);
  console.log("by operation (slowest p99 first):");
  const operations = [...stats.byOperation].map(([name, times]) => ({ name, times: times.sort((a, b) => a - b) }));
  operations.sort((a, b) => percentile(b.times, 99) - percentile(a.times, 99));
  for (const { name, times } of operations) {
    console.log(`  ${name.padEnd(44)} ${String(times.length).padStart(7)}  p50 ${percentile(times, 50).toFixed(1).padStart(6)} ms  p99 ${percentile(times, 99).toFixed(1).padStart(6)} ms  max ${times.at(-1)!.toFixed(1).padStart(6)} ms`);
  }
  console.log(`calls placed ${callsPlaced}, not completed ${callsFailed}`);
  if (firstLevel !== null && lastLevel !== null) {
    console.log(
      `RSS (median of ${windowSamples} samples, 10 s apart): first minute after warm-up ${firstLevel.toFixed(0)} MiB, last minute ${lastLevel.toFixed(0)} MiB ` +
        `(${(drift! * 100).toFixed(1)}%); every sample after warm-up within ${Math.min(...rssSamples).toFixed(0)}–${Math.max(...rssSamples).toFixed(0)} MiB`,
    );
  }
  for (const line of stats.lastErrors) console.log(`error: ${line}`);
  return stats.errors === 0 && callsFailed === 0 && (drift === null || Math.abs(drift) <= 0.1) ? 0 : 1;
}

let code = 1;
try {
  code = await main();
} catch (error) {
  console.error(`soak failed: ${(error as Error).stack}`);
} finally {
  child?.kill("SIGTERM");
  await child?.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(code);
