// Prometheus from Debian (package `prometheus`): `promtool check metrics` judges an exposition, and a
// real server scrapes Parley's metrics listener on loopback and answers queries over its HTTP API.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./baresip.ts";

export const PROMTOOL = Bun.which("promtool");
export const PROMETHEUS = Bun.which("prometheus");
export const prometheusAvailable = PROMTOOL !== null && PROMETHEUS !== null;
// CI installs it (.ci/run): there a missing Prometheus is a broken setup, not a reason to skip.
if (!prometheusAvailable && process.env.CI) throw new Error("prometheus is not installed: apt-get install prometheus");

/** promtool's verdict on an exposition: its exit code and whatever it printed (lint problems). */
export async function promtoolCheck(exposition: string): Promise<{ exitCode: number; output: string }> {
  const child = Bun.spawn([PROMTOOL!, "check", "metrics"], { stdin: new TextEncoder().encode(exposition), stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, output: (stdout + stderr).trim() };
}

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** The samples of an exposition (label values unescaped). */
export function parseSamples(exposition: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of exposition.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key] = raw.replace(/\\(.)/g, (_, c) => (c === "n" ? "\n" : c));
    }
    samples.push({ name: match[1], labels, value: match[3] === "+Inf" ? Infinity : Number(match[3]) });
  }
  return samples;
}

/** The one sample of `name` whose labels include `labels`; 0 when there is none (a series not yet created). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${name} ${JSON.stringify(labels)} matches ${found.length} series`);
  return found[0]?.value ?? 0;
}

export async function scrape(url: string, token?: string): Promise<Sample[]> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.status !== 200) throw new Error(`scrape ${url}: ${res.status} ${await res.text()}`);
  return parseSamples(await res.text());
}

export interface PrometheusServer {
  url: string;
  /** An instant query's vector: each series' labels and value. */
  query(promql: string): Promise<{ metric: Record<string, string>; value: number }[]>;
  stop(): Promise<void>;
}

/** A Prometheus on loopback scraping `target` (host:port) twice a second, with its own temporary config and storage. */
export async function startPrometheus(target: string, token?: string): Promise<PrometheusServer> {
  const dir = mkdtempSync(join(tmpdir(), "parley-prometheus-"));
  const config = [
    "global:",
    "  scrape_interval: 500ms",
    "  scrape_timeout: 500ms",
    "scrape_configs:",
    "  - job_name: parley",
    ...(token ? ["    authorization:", `      credentials: ${JSON.stringify(token)}`] : []),
    "    static_configs:",
    `      - targets: [${JSON.stringify(target)}]`,
    "",
  ].join("\n");
  writeFileSync(join(dir, "prometheus.yml"), config);
  const port = await freePort("tcp");
  const child = Bun.spawn(
    [PROMETHEUS!, `--config.file=${join(dir, "prometheus.yml")}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"],
    { stdout: "ignore", stderr: "pipe" },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ready = await fetch(`${url}/-/ready`).then((r) => r.status === 200, () => false);
    if (ready) break;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      throw new Error(`prometheus did not become ready: ${await new Response(child.stderr).text()}`);
    }
    await Bun.sleep(100);
  }
  return {
    url,
    async query(promql) {
      const res = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(promql)}`);
      const body = (await res.json()) as { status: string; data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
      if (body.status !== "success") throw new Error(`query ${promql}: ${JSON.stringify(body)}`);
      return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
    },
    async stop() {
      child.kill("SIGTERM");
      await child.exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
