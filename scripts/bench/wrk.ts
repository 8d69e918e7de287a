// Runs wrk (Debian's `wrk`) against one URL and reads its report: the load generator the issue's
// figures were taken with, in C, so the client costs the box as little as possible.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface WrkRun {
  url: string;
  headers?: Record<string, string>;
  threads?: number;
  connections?: number;
  seconds: number;
  /** Paces each connection: this many ms between its requests (a fixed offered load). */
  delayMs?: number;
}

export interface WrkResult {
  requestsPerSecond: number;
  requests: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Non-2xx/3xx responses plus socket errors: must be 0 for a figure to count. */
  errors: number;
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

export function parseWrk(output: string): WrkResult {
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
    if (run.delayMs !== undefined) {
      const script = join(dir, "pace.lua");
      writeFileSync(script, `function delay() return ${run.delayMs} end\n`);
      args.push("-s", script);
    }
    const proc = Bun.spawn([...args, run.url], { stdout: "pipe", stderr: "pipe" });
    const [output, errors] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    if ((await proc.exited) !== 0) throw new Error(`wrk failed: ${errors || output}`);
    return parseWrk(output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
