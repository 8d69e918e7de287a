// SQLite and PostgreSQL modes side by side, in one run: the API scenarios (wrk against `parley serve`),
// webhook deliveries/s, the campaign dialing rate (and ingest), knowledge query latency at 100k chunks.
// PostgreSQL is a real server started here (Debian's binaries, as the tests start theirs: initdb and
// pg_ctl on a temporary directory and a free port) with fsync on, as a real one runs; each bench run
// gets a fresh database. Synchronous commit is off on PostgreSQL, as SQLite's synchronous=NORMAL under
// WAL: both may lose the last commits on power loss, neither is corrupted. The modes take turns at
// each figure; a row that fails in one mode says "failed: <reason>" there and the run goes on.
// Usage: bun scripts/bench/modes.ts [--modes sqlite,postgres] [--only api,webhooks,campaigns,kb]
//        [--rounds 1] [--duration 5] [--connections 50] [--chunks 100000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startPostgres, type PostgresServer } from "../../test/helpers/postgres.ts";
import { API_SCENARIOS, measureScenario, NO_RATE_LIMITS, seedWorkspace, type Seeded } from "./api-scenarios.ts";
import { ROOT, runScript } from "./baseline.ts";
import { spawnParley } from "./spawn-parley.ts";
import { median } from "./stats.ts";
import { wrkAvailable } from "./wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    modes: { type: "string", default: "sqlite,postgres" },
    only: { type: "string", default: "api,webhooks,campaigns,kb" },
    rounds: { type: "string", default: "1" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "50" },
    chunks: { type: "string", default: "100000" },
  },
});
type Mode = "sqlite" | "postgres";
const MODES = values.modes.split(",") as Mode[];
for (const mode of MODES) if (mode !== "sqlite" && mode !== "postgres") throw new Error(`--modes: "${mode}" is neither sqlite nor postgres`);
const ONLY = new Set(values.only.split(","));
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.duration);
const CONNECTIONS = Number(values.connections);

// ---------------------------------------------------------------- figures

interface Figure {
  label: string;
  unit: string;
  runs: Partial<Record<Mode, number[]>>;
  failed: Partial<Record<Mode, string>>;
}
const figures = new Map<string, Figure>();
const figure = (label: string, unit: string) => {
  const found = figures.get(label) ?? { label, unit, runs: {}, failed: {} };
  figures.set(label, found);
  return found;
};
function record(label: string, unit: string, mode: Mode, value: number): void {
  (figure(label, unit).runs[mode] ??= []).push(value);
  console.log(`  ${mode.padEnd(8)} ${label}: ${format(value)} ${unit}`);
}
function fail(labels: [string, string][], mode: Mode, error: unknown): void {
  const reason = oneLine(error);
  for (const [label, unit] of labels) figure(label, unit).failed[mode] ??= reason;
  console.log(`  ${mode.padEnd(8)} ${labels[0][0]}: failed: ${reason}`);
}
const oneLine = (error: unknown) => ((error as Error)?.message ?? String(error)).split("\n").find((line) => line.trim())!.trim().slice(0, 160);
const format = (n: number) => n.toFixed(n < 10 ? 2 : n < 100 ? 1 : 0);

// ---------------------------------------------------------------- databases

let postgres = null as PostgresServer | null;
let databases = 0;
/** `--database-url` of a fresh database for a PostgreSQL run; nothing for SQLite. */
function databaseArgs(mode: Mode): string[] {
  if (mode === "sqlite") return [];
  postgres ??= startPostgres({ settings: { fsync: "on", full_page_writes: "on" } });
  const name = `bench_${++databases}`;
  postgres.sql(`CREATE DATABASE ${name}`);
  return ["--database-url", postgres.url(name)];
}

/** Runs a bench script in `mode`; one that ignored --database-url (no `mode: postgres` line) is a failure. */
async function inMode(mode: Mode, script: string, args: string[]): Promise<string> {
  // Said before minutes of a run on SQLite that would then be thrown away.
  if (mode === "postgres" && !(await Bun.file(join(ROOT, script)).text()).includes("databaseSettings(")) throw new Error(`${script} takes no --database-url yet`);
  const output = await runScript(ROOT, script, [...args, ...databaseArgs(mode)]);
  const ran = /mode: (sqlite|postgres)/.exec(output)?.[1] ?? "sqlite";
  if (ran !== mode) throw new Error(`${script} has no ${mode} mode yet (it ran on ${ran})`);
  return output;
}

function read(output: string, pattern: RegExp): number {
  const value = Number(pattern.exec(output)?.[1]?.replace(/,/g, ""));
  if (!Number.isFinite(value)) throw new Error(`printed no ${pattern}`);
  return value;
}

// ---------------------------------------------------------------- benches

async function api(): Promise<void> {
  const temp = mkdtempSync(join(tmpdir(), "parley-modes-"));
  const servers: Partial<Record<Mode, { url: string; seeded: Seeded; stop: () => Promise<unknown> }>> = {};
  const labels = API_SCENARIOS.flatMap((s): [string, string][] => [[s.label, "req/s"], [`${s.label}: p50`, "ms"], [`${s.label}: p99`, "ms"]]);
  try {
    for (const mode of MODES) {
      try {
        const server = await spawnParley(join(temp, mode), NO_RATE_LIMITS, { args: databaseArgs(mode) });
        const stop = () => (server.process.kill(), server.process.exited);
        servers[mode] = { url: server.url, stop, seeded: await seedWorkspace(server.url).catch(async (error) => (await stop(), Promise.reject(error))) };
      } catch (error) {
        fail(labels, mode, error);
      }
    }
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`api, round ${round}/${ROUNDS}`);
      for (const scenario of API_SCENARIOS) {
        for (const mode of MODES) {
          const server = servers[mode];
          if (!server) continue;
          try {
            const result = await measureScenario(server.url, server.seeded, scenario, SECONDS, CONNECTIONS);
            record(scenario.label, "req/s", mode, result.requestsPerSecond);
            record(`${scenario.label}: p50`, "ms", mode, result.latencyMs.p50);
            record(`${scenario.label}: p99`, "ms", mode, result.latencyMs.p99);
          } catch (error) {
            fail(labels.filter(([label]) => label.startsWith(scenario.label)), mode, error);
          }
        }
      }
    }
  } finally {
    await Promise.all(Object.values(servers).map((server) => server.stop()));
    rmSync(temp, { recursive: true, force: true });
  }
}

/** Each mode in turn runs `script` with `args`; `figures` reads what it printed. */
async function scripted(name: string, script: string, args: string[], labels: [string, string][], figures: (output: string) => number[]): Promise<void> {
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`${name}, round ${round}/${ROUNDS}`);
    for (const mode of MODES) {
      try {
        const values = figures(await inMode(mode, script, args));
        for (const [i, [label, unit]] of labels.entries()) record(label, unit, mode, values[i]);
      } catch (error) {
        fail(labels, mode, error);
      }
    }
  }
}

const RATES = [600, 1200];

/** kb-modes.ts measures both databases on the same chunks in one process; its hybrid row gives both modes' p50 and p95. */
async function knowledge(): Promise<void> {
  const at = `${Number(values.chunks).toLocaleString("en-US")} chunks`;
  const labels: [string, string][] = [[`knowledge: hybrid query at ${at}, p50`, "ms"], [`knowledge: hybrid query at ${at}, p95`, "ms"]];
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`knowledge, round ${round}/${ROUNDS}`);
    try {
      const output = await runScript(ROOT, "scripts/bench/kb-modes.ts", ["--chunks", values.chunks, "--queries", "200"]);
      const row = /^hybrid\b.*?([\d.]+) \/ ([\d.]+)\s+([\d.]+) \/ ([\d.]+)\s*$/m.exec(output);
      if (!row) throw new Error("kb-modes.ts printed no hybrid row");
      const [liteP50, liteP95, pgP50, pgP95] = row.slice(1).map(Number);
      if (MODES.includes("sqlite")) record(labels[0][0], "ms", "sqlite", liteP50), record(labels[1][0], "ms", "sqlite", liteP95);
      if (MODES.includes("postgres")) record(labels[0][0], "ms", "postgres", pgP50), record(labels[1][0], "ms", "postgres", pgP95);
    } catch (error) {
      for (const mode of MODES) fail(labels, mode, error);
    }
  }
}
const BENCHES: Record<string, () => Promise<void>> = {
  api,
  webhooks: () =>
    scripted(
      "webhooks",
      "scripts/bench/webhooks.ts",
      ["--burst", "5000", "--rate", "200", "--seconds", "5", "--backlog", "0"],
      [["webhooks: burst of 5,000", "deliveries/s"], ["webhooks: 200/s steady, enqueue→delivery p50", "ms"], ["webhooks: 200/s steady, enqueue→delivery p99", "ms"]],
      (out) => [read(out, /→ (\d+) deliveries\/s/), read(out, /^steady .* p50 ([\d.]+) ms/m), read(out, /^steady .* p99 ([\d.]+) ms/m)],
    ),
  campaigns: () =>
    scripted(
      "campaigns",
      "scripts/bench/campaigns.ts",
      ["--rows", "20000", "--runs", "1", "--rates", RATES.join(","), "--seconds", "15"],
      [["campaign ingest, 20,000 rows", "rows/s"], ...RATES.flatMap((rate): [string, string][] => [[`campaign dialing at ${rate}/min: achieved`, "calls/min"], [`campaign dialing at ${rate}/min: gap p99`, "ms"]])],
      (out) => [
        read(out, /median [\d.]+ s → ([\d,]+) rows\/s/),
        ...RATES.flatMap((rate) => {
          // The pacing table's row: configured, calls, actual/min, ratio, interval, gap p50, gap p99, …
          const row = new RegExp(`^\\s+${rate}\\s+\\d+\\s+([\\d.]+)\\s+[\\d.]+\\s+[\\d.]+\\s+[\\d.]+\\s+([\\d.]+)`, "m").exec(out);
          if (!row) throw new Error(`printed no pacing row for ${rate}/min`);
          return [Number(row[1]), Number(row[2])];
        }),
      ],
    ),
  kb: knowledge,
};

// ---------------------------------------------------------------- run and report

if (ONLY.has("api") && !wrkAvailable()) throw new Error("wrk is not installed: apt-get install wrk");
const load = async () => (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
const loadBefore = await load();
let pgVersion = "";
try {
  for (const [name, bench] of Object.entries(BENCHES)) if (ONLY.has(name)) await bench();
} finally {
  pgVersion = postgres?.sql("SHOW server_version").split(" ")[0] ?? "";
  postgres?.stop();
}
const loadAfter = await load();

console.log(`\n== modes side by side: ${MODES.join(" and ")}${pgVersion ? ` (PostgreSQL ${pgVersion} on loopback, fsync on, synchronous_commit off)` : ""}; ${ROUNDS > 1 ? `medians of ${ROUNDS} rounds` : "one round"}, modes in turns`);
console.log(`   ${navigator.hardwareConcurrency} cores, bun ${Bun.version}, wrk ${CONNECTIONS} connections ${SECONDS} s; load average ${loadBefore} before, ${loadAfter} after`);
const cell = (f: Figure, mode: Mode) => (f.failed[mode] ? `failed: ${f.failed[mode]}` : f.runs[mode]?.length ? `${format(median(f.runs[mode]!))} ${f.unit}` : "–");
const rows = [...figures.values()].map((f) => {
  const [a, b] = [f.runs[MODES[0]], f.runs[MODES[1]]];
  const ratio = a?.length && b?.length && !f.failed[MODES[0]] && !f.failed[MODES[1]] ? (median(b) / median(a)).toFixed(2) : "";
  return [f.label, ...MODES.map((mode) => cell(f, mode)), ...(MODES.length === 2 ? [ratio] : [])];
});
const header = ["figure", ...MODES, ...(MODES.length === 2 ? [`${MODES[1]}/${MODES[0]}`] : [])];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
for (const row of [header, widths.map((w) => "-".repeat(w)), ...rows]) console.log(row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  "));
