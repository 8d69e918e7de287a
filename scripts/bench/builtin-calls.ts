// What an air-gapped box carries: simultaneous simulated calls with the built-in engines doing real
// work (Flite speaks for the agent and the caller, WebRTC VAD and PocketSphinx listen), through the
// real server in its own process, with an API request asked every 100 ms meanwhile (how long the
// server's other users wait); then the server's RSS after 100 calls.
// Usage: bun scripts/bench/builtin-calls.ts [--levels 2,4,8,12] [--total 100] [--batch 10] [--recognition accurate|fast]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { apiAt, spawnParley } from "./spawn-parley.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { recognition: { type: "string", default: "accurate" }, levels: { type: "string", default: "2,4,8,12" }, total: { type: "string", default: "100" }, batch: { type: "string", default: "10" } } });
const LEVELS = values.levels.split(",").map(Number);
const TOTAL = Number(values.total);
const BATCH = Number(values.batch);
const LINES = ["What are your opening hours?", "Thanks, goodbye"];

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-builtin-"));
const { process: server, url: base } = await spawnParley(dataDir, { PARLEY_RATE_LIMIT_PER_MINUTE: "10000000", PARLEY_LOG_LEVEL: "warn", PARLEY_BUILTIN_RECOGNITION: values.recognition });
const memory = () => {
  const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
  return { rss: Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1]) / 1024, peak: Number(/^VmHWM:\s+(\d+)/m.exec(status)?.[1]) / 1024 };
};
/** Where resident memory is: anonymous (heaps) vs file-backed (the executable, libraries, model files). */
const breakdown = () => {
  const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1]) / 1024;
  return `anonymous ${kib("RssAnon").toFixed(0)} MiB, file-backed ${kib("RssFile").toFixed(0)} MiB`;
};
const cpuMs = () => {
  const fields = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1].split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};

const api = apiAt(base);

const token = (await api("POST", "/v1/auth/register", null, { email: "bench@example.com", password: "bench password 1" })).access_token;
const key = (await api("POST", "/v1/api-keys", token, { name: "bench", scope: "admin" })).key;
const health = await api("GET", "/v1/realtime/health", key);
const agent = (await api("POST", "/v1/agents", key, { name: "Front desk", first_message: "Hello, you have reached Acme. How can I help?" })).id;
const number = (await api("POST", "/v1/phone-numbers/buy", key, { area_code: "415" })).id;
await api("POST", `/v1/phone-numbers/${number}/assign`, key, { agent_id: agent });

interface CallOutcome {
  status: string;
  understood: boolean;
  /** Each turn's latency entry: end to end, and where its time went. */
  stages: Record<string, number>[];
}

async function oneCall(i: number): Promise<CallOutcome> {
  const call = await api("POST", "/v1/calls/outbound", key, { agent_id: agent, to: `+1212555${String(150 + (i % 40)).padStart(4, "0")}`, simulation: { lines: LINES, recognition: "agent" } });
  let current = call;
  for (let tries = 0; tries < 600 && ["queued", "ringing", "in_progress"].includes(current.status); tries++) {
    await Bun.sleep(500);
    current = await api("GET", `/v1/calls/${call.id}`, key);
  }
  const events = (await api("GET", `/v1/calls/${call.id}/events?limit=100`, key)).data as { type: string; data: Record<string, unknown> }[];
  const transcript = (current.transcript ?? []) as { role: string; text: string }[];
  return {
    status: current.status,
    understood: transcript.some((turn) => turn.role === "caller" && /opening|hours/i.test(turn.text)),
    stages: events.filter((e) => e.type === "latency").map((e) => e.data as Record<string, number>),
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN;
};

const idle = memory();
console.log(`server ${base}; offline recogniser: ${JSON.stringify(health.offline_recognition ?? health.engines ?? health).slice(0, 120)}`);
console.log(`idle RSS ${idle.rss.toFixed(0)} MiB\n`);
console.log("== simultaneous calls, built-in engines (Flite + VAD + PocketSphinx), each caller says two lines");
console.log("   (API: GET /v1/auth/me asked every 100 ms meanwhile, p50/p99/max: what the engines' work leaves the server's other users;");
console.log("    server CPU: over the level, and in its busiest second, in % of one core: this box has " + navigator.hardwareConcurrency + ")");
console.log("calls  completed  understood  turn p50 ms  turn p95 ms  API p50 ms  API p99 ms  API max ms  server CPU  busiest second  RSS MiB");

/**
 * Asks a cheap authenticated request every 100 ms until `done` settles: the latencies, and the server's
 * busiest second (its CPU over the level averages the calls' quiet ringing and listening in).
 */
async function probeApi(done: Promise<unknown>): Promise<{ latencies: number[]; busiestSecond: number }> {
  const latencies: number[] = [];
  const samples: { at: number; cpu: number }[] = [];
  let busiestSecond = 0;
  let finished = false;
  const stop = () => (finished = true);
  done.then(stop, stop); // a failed call is reported by the caller's await, not here as unhandled
  while (!finished) {
    const started = performance.now();
    await api("GET", "/v1/auth/me", key);
    latencies.push(performance.now() - started);
    samples.push({ at: performance.now(), cpu: cpuMs() });
    const second = samples.findLast((sample) => sample.at <= samples.at(-1)!.at - 1000);
    if (second) busiestSecond = Math.max(busiestSecond, (samples.at(-1)!.cpu - second.cpu) / (samples.at(-1)!.at - second.at));
    await Bun.sleep(100);
  }
  return { latencies, busiestSecond: busiestSecond * 100 };
}

let placed = 0;
for (const level of LEVELS) {
  const cpuBefore = cpuMs();
  const started = performance.now();
  const calls = Promise.all(Array.from({ length: level }, () => oneCall(placed++)));
  const [outcomes, { latencies: apiLatencies, busiestSecond }] = await Promise.all([calls, probeApi(calls)]);
  const cpu = ((cpuMs() - cpuBefore) / (performance.now() - started)) * 100;
  const stages = outcomes.flatMap((o) => o.stages);
  const stage = (name: string) => stages.map((s) => Number(s[name])).filter(Number.isFinite);
  const turns = stage("end_to_end_ms");
  console.log(
    `${String(level).padStart(5)}  ${String(outcomes.filter((o) => o.status === "completed").length).padStart(9)}  ${String(outcomes.filter((o) => o.understood).length).padStart(10)}  ` +
      `${percentile(turns, 50).toFixed(0).padStart(11)}  ${percentile(turns, 95).toFixed(0).padStart(11)}  ${percentile(apiLatencies, 50).toFixed(1).padStart(10)}  ${percentile(apiLatencies, 99).toFixed(1).padStart(10)}  ${Math.max(...apiLatencies).toFixed(1).padStart(10)}  ` +
      `${cpu.toFixed(0).padStart(9)}%  ${busiestSecond.toFixed(0).padStart(14)}%  ${memory().rss.toFixed(0).padStart(7)}`,
  );
  const p50 = (name: string) => percentile(stage(name), 50).toFixed(0);
  console.log(`       a turn's p50 by stage (ms): recognition ${p50("stt_ms")}, agent ${p50("llm_ttft_ms")}, first audio ${p50("tts_ttfb_ms")}, Parley ${p50("platform_ms")}`);
}

console.log(`\n== memory over ${TOTAL} calls (${BATCH} at a time)`);
while (placed < TOTAL) {
  const batch = Math.min(BATCH, TOTAL - placed);
  await Promise.all(Array.from({ length: batch }, () => oneCall(placed++)));
  if (placed % 20 < BATCH || placed === TOTAL) console.log(`after ${placed} calls: RSS ${memory().rss.toFixed(0)} MiB`);
}
await Bun.sleep(2000);
const after = memory();
console.log(`idle RSS ${idle.rss.toFixed(0)} MiB → after ${placed} calls ${after.rss.toFixed(0)} MiB (peak ${after.peak.toFixed(0)} MiB); goal < 150 MiB`);
// Idle decoders and an idle Flite are released after 60 s without use (decoders at the next 15 s
// sweep): what a quiet box holds once the calls are over.
for (let waited = 15; waited <= 120; waited += 15) {
  await Bun.sleep(15_000);
  if (waited % 30 === 0) console.log(`${waited} s after the last call: RSS ${memory().rss.toFixed(0)} MiB (${breakdown()})`);
}
server.kill("SIGTERM");
await server.exited;
rmSync(dataDir, { recursive: true, force: true });
