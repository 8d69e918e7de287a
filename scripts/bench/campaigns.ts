// Campaign benchmark on a real server (system clock, simulated carrier):
//  1. ingest: a 100,000-row contacts CSV (phone in mixed spellings plus a few variable columns, every
//     number valid for libphonenumber-js) POSTed as text/csv to /v1/campaigns/{id}/upload; wall time
//     (median of N runs, each on a fresh campaign), rows/s and the server's memory (goal < 5 s);
//  2. pacing: campaigns at a few `calls_per_minute` with concurrency to spare and callees that are
//     busy (the call ends at once), so the dial rate is the only limit; the rate achieved against the
//     one configured, and the gap between consecutive dials against the configured interval.
// Server and client share this process (as in the webhooks bench): memory figures include the CSV text.
// Usage: bun scripts/bench/campaigns.ts [--rows 100000] [--runs 3] [--rates 600,1200] [--seconds 25]
//        [--database-url postgres://…]: on PostgreSQL (modes.ts runs both modes side by side)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { databaseMiB, databaseSettings } from "./database-mode.ts";

const args = Object.fromEntries(process.argv.slice(2).join(" ").split("--").filter(Boolean).map((a) => a.trim().split(/\s+/)));
const ROWS = Number(args.rows ?? 100_000);
const RUNS = Number(args.runs ?? 3);
const RATES = String(args.rates ?? "600,1200").split(",").map(Number);
const SECONDS = Number(args.seconds ?? 25);
const INGEST_GOAL_MS = 5000;

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-campaigns-"));
const config = buildConfig({
  host: "127.0.0.1",
  port: "0",
  dataDir,
  allowPrivateUrls: "true",
  logLevel: "error",
  rateLimitPerMinute: "100000000",
  publicRateLimitPerMinute: "100000000",
  ...databaseSettings(args),
});
const ctx = createParley({ config, logger: createLogger("error") });
const server = startServer(ctx);
const cleanup = () => rmSync(dataDir, { recursive: true, force: true });
process.on("SIGINT", () => (cleanup(), process.exit(130)));

// ---------------------------------------------------------------- HTTP

let token = "";
async function call(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<any> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (body !== undefined) headers["content-type"] = contentType;
  const res = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

const registered = await call("POST", "/v1/auth/register", { email: "bench@example.test", password: "bench-password-1", name: "Bench" });
token = registered.access_token;
token = (await call("POST", "/v1/api-keys", { name: "bench", scope: "admin" })).key; // never expires, unlike the 15-minute access token
const agent = await call("POST", "/v1/agents", { name: "Bench dialer", first_message: "Hello, this is a reminder from Acme." });
const number = await call("POST", "/v1/phone-numbers/buy", { area_code: "415" });
await call("POST", `/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id });

// ---------------------------------------------------------------- contacts

// Real US area codes; subscriber numbers random but valid by libphonenumber-js's full metadata.
const AREA_CODES = [201, 202, 203, 205, 206, 212, 213, 214, 215, 216, 217, 224, 225, 248, 253, 267, 281, 301, 303, 305, 310, 312, 313, 314, 317, 323, 330, 347, 404, 407, 408, 410, 412, 414, 415, 469, 480, 503, 504, 510, 512, 513, 516, 602, 608, 612, 614, 615, 617, 619, 626, 646, 650, 651, 678, 702, 704, 713, 714, 718, 720, 732, 773, 786, 801, 804, 813, 818, 832, 858, 901, 904, 916, 917, 919, 925, 949, 971, 972, 978];
const FIRST = ["Ada", "Grace", "Alan", "Linus", "Margaret", "Dennis", "Barbara", "Ken", "Frances", "Edsger", "Radia", "Donald", "Katherine", "John", "Hedy", "Tim", "Sophie", "Guido", "Anita", "Bjarne"];
const LAST = ["Lovelace", "Hopper", "Turing", "Torvalds", "Hamilton", "Ritchie", "Liskov", "Thompson", "Allen", "Dijkstra", "Perlman", "Knuth", "Johnson", "McCarthy", "Lamarr", "Berners-Lee", "Wilson", "van Rossum", "Borg", "Stroustrup"];
const COMPANIES = ["Acme Corp", "Globex", "Initech", "Umbrella Health", "Stark Industries", "Wayne Enterprises", "Hooli", "Vandelay Imports", "Soylent, Inc.", "Cyberdyne"];
const PLANS = ["basic", "plus", "gold", "enterprise"];

/** A small deterministic generator, so every run ingests the same file. */
function random(seed: number) {
  let state = seed >>> 0;
  return (n: number) => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state % n;
  };
}

/** `count` distinct valid numbers, each written the way spreadsheets tend to hold them. */
function contactsCsv(count: number, seed: number): { csv: string; buildMs: number } {
  const started = performance.now();
  const pick = random(seed);
  const seen = new Set<string>();
  const lines = ["phone,first_name,last_name,company,appointment_date,plan"];
  while (lines.length <= count) {
    const area = AREA_CODES[pick(AREA_CODES.length)];
    const exchange = 200 + pick(800);
    if (exchange % 100 === 11 || exchange === 555 || exchange === 950 || exchange === 958 || exchange === 959 || exchange === 976) continue;
    const line = pick(10_000);
    const digits = `${area}${exchange}${String(line).padStart(4, "0")}`;
    if (seen.has(digits) || !parsePhoneNumberFromString(`+1${digits}`)?.isValid()) continue;
    seen.add(digits);
    const [a, b, c] = [digits.slice(0, 3), digits.slice(3, 6), digits.slice(6)];
    const spelled = [`+1${digits}`, `(${a}) ${b}-${c}`, `${a}-${b}-${c}`, `+1 ${a} ${b} ${c}`, `${a}.${b}.${c}`][pick(5)];
    const company = COMPANIES[pick(COMPANIES.length)];
    const day = `2026-${String(1 + pick(12)).padStart(2, "0")}-${String(1 + pick(28)).padStart(2, "0")}`;
    lines.push(`${spelled},${FIRST[pick(FIRST.length)]},${LAST[pick(LAST.length)]},${company.includes(",") ? `"${company}"` : company},${day},${PLANS[pick(PLANS.length)]}`);
  }
  return { csv: `${lines.join("\r\n")}\r\n`, buildMs: performance.now() - started };
}

// ---------------------------------------------------------------- measuring

const f = (n: number, digits = n < 10 ? 2 : 1) => n.toFixed(digits);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

function memory(): { rss: number; peak: number } {
  const status = readFileSync("/proc/self/status", "utf8");
  const kib = (key: string) => Number(status.match(new RegExp(`^${key}:\\s+(\\d+)`, "m"))?.[1] ?? NaN);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

/** Resets the peak (VmHWM) to the current RSS so each upload's own peak can be read (Linux ≥ 4.0). */
function resetPeak(): boolean {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
    return true;
  } catch {
    return false;
  }
}

const newCampaign = (name: string, extra: Record<string, unknown> = {}) => call("POST", "/v1/campaigns", { name, agent_id: agent.id, ...extra });
const upload = (campaignId: string, csv: string) => call("POST", `/v1/campaigns/${campaignId}/upload`, csv, "text/csv");

// ---------------------------------------------------------------- 1. ingest

console.log(`ingest: building a ${ROWS.toLocaleString("en-US")}-row CSV…`);
const ingestFile = contactsCsv(ROWS, 42);
const fileMiB = Buffer.byteLength(ingestFile.csv) / 1024 / 1024;
interface IngestRun {
  ms: number;
  accepted: number;
  rssBefore: number;
  rssAfter: number;
  peak: number;
  /** After a full collection: what the upload left behind, garbage aside. */
  rssAfterGc: number;
}
const ingest: IngestRun[] = [];
let peakIsPerRun = true;
for (let run = 1; run <= RUNS; run++) {
  const campaign = await newCampaign(`ingest ${run}`);
  Bun.gc(true);
  peakIsPerRun = resetPeak() && peakIsPerRun;
  const before = memory();
  const started = performance.now();
  const summary = await upload(campaign.id, ingestFile.csv);
  const ms = performance.now() - started;
  const after = memory();
  Bun.gc(true);
  const settled = memory();
  if (summary.accepted !== ROWS) throw new Error(`run ${run}: ${summary.accepted} of ${ROWS} rows accepted: ${JSON.stringify(summary.rejected_by_reason)}`);
  ingest.push({ ms, accepted: summary.accepted, rssBefore: before.rss, rssAfter: after.rss, peak: after.peak, rssAfterGc: settled.rss });
  console.log(`  run ${run}: ${f(ms / 1000)} s, ${summary.accepted} accepted, RSS ${f(before.rss)} → ${f(after.rss)} MiB (peak ${f(after.peak)}, after GC ${f(settled.rss)} MiB)`);
}
const ingestDbMiB = databaseMiB(ctx);

// ---------------------------------------------------------------- 2. pacing

interface PacingRun {
  rate: number;
  calls: number;
  actualPerMinute: number;
  intervalMs: number;
  gapP50: number;
  gapP99: number;
  gapMax: number;
  startMs: number;
  busy: number;
  /** Most contacts seen `dialing` at once (sampled every 250 ms): far below the concurrency, so it never limited the rate. */
  maxDialing: number;
}
const pacing: PacingRun[] = [];
for (const [i, rate] of RATES.entries()) {
  const calls = Math.round((rate * SECONDS) / 60) + 1; // +1: N dials span N-1 intervals
  console.log(`pacing: ${rate} calls/min, ${calls} contacts (about ${SECONDS} s)…`);
  const campaign = await newCampaign(`pacing ${rate}/min`, {
    calls_per_minute: rate,
    concurrency: 200,
    retry: { on: [], max_attempts: 1, delay_minutes: 1 },
    simulation: { behaviour: "busy" },
  });
  await upload(campaign.id, contactsCsv(calls, 1000 + i).csv);
  const started = Date.now();
  await call("POST", `/v1/campaigns/${campaign.id}/start`);
  const deadline = started + SECONDS * 3000 + 30_000;
  let state = campaign;
  let maxDialing = 0;
  while (state.status !== "completed") {
    if (Date.now() > deadline) throw new Error(`campaign at ${rate}/min still ${state.status} after ${(Date.now() - started) / 1000} s: ${JSON.stringify(state.counts)}`);
    await Bun.sleep(250);
    state = await call("GET", `/v1/campaigns/${campaign.id}`);
    maxDialing = Math.max(maxDialing, state.counts.dialing);
  }
  const dials = (ctx.sqlite.prepare("SELECT created_at AS at FROM calls WHERE campaign_id = ? ORDER BY created_at, id").all(campaign.id) as { at: number }[]).map((r) => r.at);
  const gaps = dials.slice(1).map((at, k) => at - dials[k]);
  const spanMs = dials[dials.length - 1] - dials[0];
  pacing.push({
    rate,
    calls: dials.length,
    actualPerMinute: ((dials.length - 1) / spanMs) * 60_000,
    intervalMs: 60_000 / rate,
    gapP50: percentile(gaps, 50),
    gapP99: percentile(gaps, 99),
    gapMax: Math.max(...gaps),
    startMs: dials[0] - started,
    busy: state.counts.busy,
    maxDialing,
  });
}

await server.stop();
closeParley(ctx);
cleanup();

// ---------------------------------------------------------------- summary

const ingestMs = median(ingest.map((r) => r.ms));
console.log(`\n== campaigns on ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, server and client in one process; mode: ${ctx.dialect}`);
console.log(`\n1. ingest: ${ROWS.toLocaleString("en-US")} rows, ${f(fileMiB)} MiB of text/csv (built in ${f(ingestFile.buildMs / 1000)} s), median of ${RUNS} fresh campaigns`);
console.log("   run     wall s     rows/s   RSS before → after MiB   peak MiB   after GC MiB");
for (const [k, run] of ingest.entries()) {
  console.log(`   ${String(k + 1).padStart(3)} ${f(run.ms / 1000).padStart(10)} ${String(Math.round(ROWS / (run.ms / 1000))).padStart(10)} ${`${f(run.rssBefore)} → ${f(run.rssAfter)}`.padStart(24)} ${f(run.peak).padStart(10)} ${f(run.rssAfterGc).padStart(14)}`);
}
console.log(`   median ${f(ingestMs / 1000)} s → ${Math.round(ROWS / (ingestMs / 1000)).toLocaleString("en-US")} rows/s (goal < ${INGEST_GOAL_MS / 1000} s: ${ingestMs < INGEST_GOAL_MS ? "met" : "NOT met"});`);
console.log(`   ${peakIsPerRun ? "peak = the process's high-water mark during that upload" : "peak = the process's high-water mark so far (could not reset it per run)"}; database after ${RUNS} uploads ${f(ingestDbMiB)} MiB`);

console.log(`\n2. pacing on the simulated carrier (callees busy: each call ends at once), concurrency 200`);
console.log("   configured/min  calls   actual/min   ratio   interval ms   gap p50 ms   gap p99 ms   gap max ms   first dial after start ms   max dialing");
for (const run of pacing) {
  console.log(
    `   ${String(run.rate).padStart(14)} ${String(run.calls).padStart(6)} ${f(run.actualPerMinute).padStart(12)} ${(run.actualPerMinute / run.rate).toFixed(3).padStart(7)} ${f(run.intervalMs).padStart(13)} ${f(run.gapP50).padStart(12)} ${f(run.gapP99).padStart(12)} ${f(run.gapMax).padStart(12)} ${f(run.startMs).padStart(27)} ${String(run.maxDialing).padStart(13)}`,
  );
  if (run.busy !== run.calls) console.log(`   (note: ${run.busy} of ${run.calls} contacts ended busy)`);
}
