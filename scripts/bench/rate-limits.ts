// What counting the rate limits for a cluster costs an authenticated GET in PostgreSQL mode: this
// checkout against another commit (--baseline, e.g. the one before the shared counters), alternating
// round after round on one PostgreSQL server (a fresh database for each side), GET /v1/auth/me with an
// API key under wrk. Figures: req/s, and CPU µs per request of the Parley process (all its threads: the
// event loop and the PostgreSQL bridge's worker) and of its main thread alone (the event loop, where a
// statement's round trip is paid), read from /proc over the measured run. Limits are set out of reach,
// as the other API benches do, so every request is admitted: the cost of an admitted request is measured.
// Usage: bun scripts/bench/rate-limits.ts --baseline <commit> [--rounds 3] [--duration 5] [--connections 50]
//        [--synchronous-commit on|off]
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { startPostgres } from "../../test/helpers/postgres.ts";
import { API_SCENARIOS, measureScenario, NO_RATE_LIMITS, seedWorkspace, type Seeded } from "./api-scenarios.ts";
import { ROOT, withCheckout } from "./baseline.ts";
import { spawnParley } from "./spawn-parley.ts";
import { median } from "./stats.ts";
import { wrkAvailable } from "./wrk.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    baseline: { type: "string" },
    rounds: { type: "string", default: "3" },
    duration: { type: "string", default: "5" },
    connections: { type: "string", default: "50" },
    "synchronous-commit": { type: "string", default: "on" },
  },
});
if (!values.baseline) throw new Error("--baseline <commit> is required (the commit before the change measured)");
if (!wrkAvailable()) throw new Error("wrk is not installed: apt-get install wrk");
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.duration);
const CONNECTIONS = Number(values.connections);
const SCENARIO = API_SCENARIOS[0]; // GET /v1/auth/me (API key)
const TICK_US = 1_000_000 / 100; // USER_HZ

/** utime + stime of a process (or one of its threads), in µs. */
function cpuMicros(path: string): number {
  const fields = readFileSync(path, "utf8").replace(/^.*\) /s, "").split(" ");
  return (Number(fields[11]) + Number(fields[12])) * TICK_US;
}

interface Side {
  name: string;
  pid: number;
  url: string;
  seeded: Seeded;
  stop: () => Promise<unknown>;
  rps: number[];
  cpu: number[];
  mainCpu: number[];
}

// As a real server runs: fsync on and, unless told otherwise, synchronous_commit on (PostgreSQL's default), so a
// statement that writes waits for its WAL to reach the disk before the event loop goes on.
const postgres = startPostgres({ settings: { fsync: "on", full_page_writes: "on", synchronous_commit: values["synchronous-commit"] } });
const temp = mkdtempSync(join(tmpdir(), "parley-bench-limits-"));
const sides: Side[] = [];

async function start(name: string, root: string): Promise<Side> {
  const database = `limits_${name}`;
  postgres.sql(`CREATE DATABASE ${database}`);
  const server = await spawnParley(join(temp, name), NO_RATE_LIMITS, { root, args: ["--database-url", postgres.url(database)] });
  const stop = () => (server.process.kill(), server.process.exited);
  const seeded = await seedWorkspace(server.url);
  return { name, pid: server.process.pid, url: server.url, seeded, stop, rps: [], cpu: [], mainCpu: [] };
}

try {
  await withCheckout(values.baseline, async (baselineRoot) => {
    sides.push(await start("baseline", baselineRoot), await start("current", ROOT));
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 ? sides : [...sides].reverse()) {
        const whole = `/proc/${side.pid}/stat`;
        const main = `/proc/${side.pid}/task/${side.pid}/stat`;
        // measureScenario warms up for a second first: read the counters around the whole call, then count that second's requests too.
        const [before, mainBefore] = [cpuMicros(whole), cpuMicros(main)];
        const started = performance.now();
        const result = await measureScenario(side.url, side.seeded, SCENARIO, SECONDS, CONNECTIONS);
        const elapsed = (performance.now() - started) / 1000;
        const requests = result.requestsPerSecond * elapsed; // the warm-up runs at the same rate
        side.rps.push(result.requestsPerSecond);
        side.cpu.push((cpuMicros(whole) - before) / requests);
        side.mainCpu.push((cpuMicros(main) - mainBefore) / requests);
        console.log(`round ${round} ${side.name.padEnd(8)} ${result.requestsPerSecond.toFixed(0)} req/s, ${side.cpu.at(-1)!.toFixed(0)} µs CPU/request (main thread ${side.mainCpu.at(-1)!.toFixed(0)})`);
      }
    }
  });
  console.log(`\n${SCENARIO.label}, PostgreSQL mode (synchronous_commit ${values["synchronous-commit"]}), ${CONNECTIONS} connections, medians of ${ROUNDS} rounds:`);
  for (const side of sides) {
    console.log(`  ${side.name.padEnd(8)} ${median(side.rps).toFixed(0)} req/s, ${median(side.cpu).toFixed(0)} µs CPU/request, main thread ${median(side.mainCpu).toFixed(0)} µs/request`);
  }
} finally {
  await Promise.all(sides.map((side) => side.stop()));
  postgres.stop();
  rmSync(temp, { recursive: true, force: true });
}
