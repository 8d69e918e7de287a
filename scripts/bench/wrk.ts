// Runs wrk (Debian's `wrk`) against one URL and reads its report: the load generator the issue's
// figures were taken with, in C, so the client costs the box as little as possible.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface WrkRun {
  url: string;
  headers?: Record<string, string>;
  threads?: number;
  connections?: number;
  seconds: number;
  /**
   * Offers this many requests per second as independent (Poisson) arrivals, spread over the threads,
   * instead of as fast as the connections go. A fixed pause after each response (wrk's usual pacing)
   * offers less than asked once responses take time, and a stall lines every connection up so they
   * arrive together ever after: a burst wrk made, measured as the server's tail.
   */
  ratePerSecond?: number;
  /** A write instead of a GET: the same body on every request. */
  method?: "POST" | "PUT" | "PATCH";
  body?: string;
}

export interface WrkResult {
  requestsPerSecond: number;
  requests: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Non-2xx/3xx responses plus socket errors: must be 0 for a figure to count. */
  errors: number;
  /** Share of the box's CPU time the hypervisor gave to others during the run (/proc/stat steal). */
  stolen: number;
}

export function wrkAvailable(): boolean {
  return Bun.spawnSync(["sh", "-c", "command -v wrk"]).exitCode === 0;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function durationMs(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(text);
  if (!match) throw new Error(`wrk printed a duration I cannot read: ${text}`);
  return Number(match[1]) * UNIT_MS[match[2]];
}

// wrk calls delay() before each request of a connection. Each thread keeps one schedule of arrival
// times, gaps drawn from an exponential distribution, and sends a connection's next request at the
// next free arrival (at once when behind). LuaJIT's ffi reads the monotonic clock wrk does not offer.
const POISSON_PACING = `
local ffi = require("ffi")
ffi.cdef[[ typedef struct { long tv_sec; long tv_nsec; } pace_timespec; int clock_gettime(int, pace_timespec*); ]]
local ts = ffi.new("pace_timespec")
local function now_ms() ffi.C.clock_gettime(1, ts); return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6 end
local threads = 0
function setup(thread) threads = threads + 1; thread:set("seed", threads) end
local next_at = nil
function init(args) math.randomseed(seed * 7919 + os.time()) end
function delay()
  local now = now_ms()
  next_at = (next_at or now) - GAP_MS * math.log(1 - math.random())
  local wait = next_at - now
  if wait < 0 then return 0 end
  return math.floor(wait + 0.5)
end
`;

/** Cumulative CPU ticks of the whole box: all, and those stolen by the hypervisor. */
function cpuTicks(): { total: number; steal: number } {
  const fields = readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: fields.reduce((sum, n) => sum + n, 0), steal: fields[7] ?? 0 };
}

export function parseWrk(output: string): Omit<WrkResult, "stolen"> {
  const percentile = (p: string) => durationMs(new RegExp(`^\\s+${p}%\\s+(\\S+)`, "m").exec(output)?.[1] ?? "NaNms");
  const latencyLine = /^\s+Latency\s+\S+\s+\S+\s+(\S+)/m.exec(output);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(output);
  return {
    requestsPerSecond: Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1]),
    requests: Number(/(\d+) requests in/.exec(output)?.[1]),
    latencyMs: { p50: percentile("50"), p90: percentile("90"), p99: percentile("99"), max: latencyLine ? durationMs(latencyLine[1]) : NaN },
    errors: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0) + (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
  };
}

export async function runWrk(run: WrkRun): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), "parley-wrk-"));
  try {
    const args = ["wrk", `-t${run.threads ?? 2}`, `-c${run.connections ?? 50}`, `-d${run.seconds}s`, "--latency"];
    for (const [name, value] of Object.entries(run.headers ?? {})) args.push("-H", `${name}: ${value}`);
    const lua: string[] = [];
    if (run.method) lua.push(`wrk.method = "${run.method}"`, `wrk.body = ${JSON.stringify(run.body ?? "")}`);
    if (run.ratePerSecond !== undefined) lua.push(`local GAP_MS = ${((run.threads ?? 2) * 1000) / run.ratePerSecond}`, POISSON_PACING);
    if (lua.length) {
      const script = join(dir, "request.lua");
      writeFileSync(script, lua.join("\n"));
      args.push("-s", script);
    }
    const before = cpuTicks();
    const proc = Bun.spawn([...args, run.url], { stdout: "pipe", stderr: "pipe" });
    const [output, errors] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    if ((await proc.exited) !== 0) throw new Error(`wrk failed: ${errors || output}`);
    const after = cpuTicks();
    return { ...parseWrk(output), stolen: (after.steal - before.steal) / Math.max(1, after.total - before.total) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
