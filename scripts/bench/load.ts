// Load generator, run by api.ts as its own process so it never shares an event loop with a server.
// Usage: bun scripts/bench/load.ts '<LoadConfig as JSON>'  → one LoadResult as JSON on stdout.
import { readFileSync } from "node:fs";

export interface LoadConfig {
  url: string;
  headers: Record<string, string>;
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** The server under load, so its CPU time over the measured window can be reported. */
  serverPid: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Response count per HTTP status, plus "error" for requests that failed outright. */
  statuses: Record<string, number>;
  /** Percent of one core used during the measured window (200 = both cores of a 2-core box). */
  serverCpuPercent: number;
  loaderCpuPercent: number;
}

interface Sample {
  latencies: number[];
  statuses: Record<string, number>;
}

const CLOCK_TICKS_PER_SECOND = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/** utime + stime of a process (all threads), in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) may contain spaces; fields after it are counted from its closing ')'.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

async function connectionLoop(config: LoadConfig, until: number, sample: Sample): Promise<void> {
  while (performance.now() < until) {
    const started = performance.now();
    let outcome: string;
    try {
      const response = await fetch(config.url, { headers: config.headers });
      await response.arrayBuffer();
      outcome = String(response.status);
    } catch {
      outcome = "error";
      await Bun.sleep(1); // a dead server must not turn this loop into a busy spin
    }
    sample.latencies.push(performance.now() - started);
    sample.statuses[outcome] = (sample.statuses[outcome] ?? 0) + 1;
  }
}

async function runPhase(config: LoadConfig, durationMs: number): Promise<Sample & { elapsedMs: number }> {
  const sample: Sample = { latencies: [], statuses: {} };
  const started = performance.now();
  const loops = Array.from({ length: config.concurrency }, () => connectionLoop(config, started + durationMs, sample));
  await Promise.all(loops);
  return { ...sample, elapsedMs: performance.now() - started };
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function main(): Promise<void> {
  const config = JSON.parse(process.argv[2]) as LoadConfig;
  await runPhase(config, config.warmupMs);

  const serverCpuBefore = cpuMs(config.serverPid);
  const loaderCpuBefore = cpuMs(process.pid);
  const measured = await runPhase(config, config.durationMs);
  const serverCpu = cpuMs(config.serverPid) - serverCpuBefore;
  const loaderCpu = cpuMs(process.pid) - loaderCpuBefore;

  const sorted = Float64Array.from(measured.latencies).sort();
  const result: LoadResult = {
    requests: sorted.length,
    requestsPerSecond: (sorted.length * 1000) / measured.elapsedMs,
    latencyMs: { p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] ?? NaN },
    statuses: measured.statuses,
    serverCpuPercent: (serverCpu / measured.elapsedMs) * 100,
    loaderCpuPercent: (loaderCpu / measured.elapsedMs) * 100,
  };
  process.stdout.write(JSON.stringify(result) + "\n");
}

if (import.meta.main) await main();
