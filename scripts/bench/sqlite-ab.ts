// SQLite mode against an older commit, in the same run: the figures issue 35 says must stay within 10 %
// (GET /v1/auth/me with a key, the 20-agent list, webhook deliveries/s, the calls bench's added latency,
// campaign ingest). The older commit runs from a temporary worktree (baseline.ts); the two sides take
// turns, round after round (the order flips each round), so the box's mood falls on both; medians shown.
// API scenarios: both servers run from source (`parley serve`), seeded alike, and wrk loads one at a time.
// The others run each checkout's own bench script (webhooks.ts, calls.ts, campaigns.ts) with small sizes.
// Usage: bun scripts/bench/sqlite-ab.ts --baseline <commit> [--rounds 5] [--duration 5] [--connections 50]
//        [--only api,webhooks,calls,campaigns]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { API_SCENARIOS, measureScenario, NO_RATE_LIMITS, seedWorkspace } from "./api-scenarios.ts";
import { ROOT, runScript, withCheckout } from "./baseline.ts";
import { spawnParley } from "./spawn-parley.ts";
import { median } from "./stats.ts";
import { wrkAvailable } from "./wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    baseline: { type: "string" },
    rounds: { type: "string", default: "5" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "50" },
    only: { type: "string", default: "api,webhooks,calls,campaigns" },
  },
});
if (!values.baseline) throw new Error("--baseline <commit> is required (e.g. the commit before the change measured)");
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const ONLY = new Set(values.only.split(","));

type Side = "baseline" | "current";
interface Figure {
  label: string;
  unit: string;
  /** Which way is better: the "worse by" column reads it. */
  better: "higher" | "lower";
  runs: Record<Side, number[]>;
}

const figures = new Map<string, Figure>();
function record(label: string, unit: string, better: Figure["better"], side: Side, value: number): void {
  const figure = figures.get(label) ?? { label, unit, better, runs: { baseline: [], current: [] } };
  figures.set(label, figure);
  figure.runs[side].push(value);
  console.log(`  ${side.padEnd(8)} ${label}: ${value.toFixed(value < 100 ? 2 : 0)} ${unit}`);
}

/** Both sides in turns, the first one flipping each round. */
const order = (round: number, dirs: Record<Side, string>): [Side, string][] =>
  round % 2 ? [["baseline", dirs.baseline], ["current", dirs.current]] : [["current", dirs.current], ["baseline", dirs.baseline]];

/** A figure the script printed: the first group of the pattern's last match. */
function read(output: string, pattern: RegExp, script: string): number {
  const matches = [...output.matchAll(new RegExp(pattern, "gm"))];
  const value = Number(matches.at(-1)?.[1]?.replace(/,/g, ""));
  if (!Number.isFinite(value)) throw new Error(`${script} printed no ${pattern}:\n${output.slice(-1500)}`);
  return value;
}

async function api(dirs: Record<Side, string>): Promise<void> {
  const temp = mkdtempSync(join(tmpdir(), "parley-ab-"));
  const servers: Partial<Record<Side, Awaited<ReturnType<typeof spawnParley>> & { seeded: Awaited<ReturnType<typeof seedWorkspace>> }>> = {};
  try {
    for (const side of ["baseline", "current"] as const) {
      const server = await spawnParley(join(temp, side), NO_RATE_LIMITS, { root: dirs[side] });
      servers[side] = { ...server, seeded: await seedWorkspace(server.url) };
    }
    for (let round = 1; round <= ROUNDS; round++) {
      console.log(`api, round ${round}/${ROUNDS}`);
      for (const scenario of API_SCENARIOS) {
        for (const [side] of order(round, dirs)) {
          const server = servers[side]!;
          const result = await measureScenario(server.url, server.seeded, scenario, SECONDS, CONNECTIONS);
          record(scenario.label, "req/s", "higher", side, result.requestsPerSecond);
        }
      }
    }
  } finally {
    for (const server of Object.values(servers)) {
      server.process.kill();
      await server.process.exited;
    }
    rmSync(temp, { recursive: true, force: true });
  }
}

async function scripted(dirs: Record<Side, string>, name: string, script: string, args: string[], read: (side: Side, output: string) => void): Promise<void> {
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`${name}, round ${round}/${ROUNDS}`);
    for (const [side, dir] of order(round, dirs)) read(side, await runScript(dir, script, args));
  }
}

const BENCHES: Record<string, (dirs: Record<Side, string>) => Promise<void>> = {
  api,
  webhooks: (dirs) =>
    scripted(dirs, "webhooks", "scripts/bench/webhooks.ts", ["--burst", "10000", "--rate", "200", "--seconds", "2", "--backlog", "1000"], (side, out) =>
      record("webhook burst of 10,000", "deliveries/s", "higher", side, read(out, /→ (\d+) deliveries\/s/, "webhooks.ts")),
    ),
  // Section 2 of calls.ts: end of speech detected → first agent frame out, engines instant. With one
  // level of 10 calls it measures 10 calls twice (20 s each): the mean of the two.
  calls: (dirs) =>
    scripted(dirs, "calls", "scripts/bench/calls.ts", ["--levels", "10", "--seconds", "3"], (side, out) => {
      const lines = [...out.matchAll(/^\s+10 calls: \d+ turns, p50 (\d+) ms, p95 (\d+) ms/gm)];
      if (lines.length !== 2) throw new Error(`calls.ts printed ${lines.length} lines of platform turn latency at 10 calls, not 2:\n${out.slice(-1500)}`);
      const mean = (group: number) => (Number(lines[0][group]) + Number(lines[1][group])) / 2;
      record("calls: added latency p50 (10 calls)", "ms", "lower", side, mean(1));
      record("calls: added latency p95 (10 calls)", "ms", "lower", side, mean(2));
    }),
  campaigns: (dirs) =>
    scripted(dirs, "campaigns", "scripts/bench/campaigns.ts", ["--rows", "100000", "--runs", "3", "--rates", "600", "--seconds", "2"], (side, out) =>
      record("campaign ingest, 100,000 rows", "rows/s", "higher", side, read(out, /median [\d.]+ s → ([\d,]+) rows\/s/, "campaigns.ts")),
    ),
};

if (ONLY.has("api") && !wrkAvailable()) throw new Error("wrk is not installed: apt-get install wrk");
const revision = values.baseline;
const loadBefore = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");
await withCheckout(revision, async (baselineDir) => {
  const dirs = { baseline: baselineDir, current: ROOT };
  for (const [name, bench] of Object.entries(BENCHES)) if (ONLY.has(name)) await bench(dirs);
});
const loadAfter = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");

const f = (n: number) => n.toFixed(n < 100 ? 2 : 0);
console.log(`\n== SQLite mode: ${revision} (baseline) against this checkout, ${ROUNDS} rounds in turns, medians`);
console.log(`   ${navigator.hardwareConcurrency} cores, bun ${Bun.version}; load average ${loadBefore} before, ${loadAfter} after`);
const rows = [...figures.values()].map((figure) => {
  const [a, b] = [median(figure.runs.baseline), median(figure.runs.current)];
  const ratio = b / a;
  const worse = figure.better === "higher" ? 1 - ratio : ratio - 1;
  return [figure.label, `${f(a)} ${figure.unit}`, `${f(b)} ${figure.unit}`, ratio.toFixed(3), `${(worse * 100).toFixed(1)} %`, worse > 0.1 ? "MORE than 10 % worse" : "within 10 %", figure.runs.current.map(f).join(" / "), figure.runs.baseline.map(f).join(" / ")];
});
const header = ["figure", "baseline", "current", "current/baseline", "worse by", "", "current runs", "baseline runs"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
for (const row of [header, widths.map((w) => "-".repeat(w)), ...rows]) console.log(row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  "));
