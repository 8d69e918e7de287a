// API benchmark of the shipped binary (dist/parley): cold start, idle memory, and requests/s and latency
// under wrk of authenticated endpoints, next to reference programs started in the same run: a bare
// Bun.serve and minimal Elysia + better-sqlite3 servers (reference.ts) doing the least the same answer
// needs. Prints ratios against the goals of issue 9, never pass/fail. Needs `wrk` (apt install wrk).
// Usage: bun scripts/bench/api.ts [--rebuild] [--starts 5] [--connections 50] [--duration 8]
import type { Subprocess } from "bun";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync } from "node:fs";
import { cpus, release, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { median } from "./stats.ts";
import { runWrk, wrkAvailable, type WrkResult } from "./wrk.ts";
import { freePort } from "../../test/helpers/postgres.ts";

const ROOT = join(import.meta.dir, "..", "..");
const BINARY = join(ROOT, "dist", "parley");
const BUN = process.execPath;
const HEALTH_POLL_MS = 5;
const READY_TIMEOUT_MS = 15_000;
const SEED_KEYS = 50;
// High enough that the rate limiter answers every request but never refuses one.
const NO_RATE_LIMITS = { PARLEY_RATE_LIMIT_PER_MINUTE: "100000000", PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE: "100000000" };

interface Options {
  rebuild: boolean;
  starts: number;
  connections: number;
  seconds: number;
}

interface Server {
  name: string;
  proc: Subprocess;
  url: string;
  logFile: string;
}

interface Scenario {
  label: string;
  result: WrkResult;
  /** The server's resident memory right after the scenario, to spot growth across scenarios. */
  rssAfterMiB: number;
  /** What the figure is compared with, and the ratio issue 9 asks for (0: shown, no goal). */
  goal?: { against: string; ratio: number };
}

/** p99 with the offered load held at half of what the server saturated at: the median run of several. */
interface HalfLoad {
  label: string;
  offered: number;
  result: WrkResult;
  /** p99 of every run, in the order they ran. */
  p99s: number[];
}

// ---------------------------------------------------------------- child processes and cleanup

const children = new Set<Subprocess>();
const tempRoot = mkdtempSync(join(tmpdir(), "parley-bench-"));

type Output = "pipe" | "inherit" | "ignore" | number;

function spawnTracked(cmd: string[], io: { stdout?: Output; stderr?: Output; env?: Record<string, string> } = {}): Subprocess {
  const proc = Bun.spawn(cmd, {
    cwd: ROOT,
    env: { ...process.env, ...io.env },
    stdin: "ignore",
    stdout: io.stdout ?? "inherit",
    stderr: io.stderr ?? "inherit",
  });
  children.add(proc);
  void proc.exited.then(() => children.delete(proc));
  return proc;
}

/** Runs a server with stdout and stderr appended to one log file (read back on failure and for errors). */
function spawnServer(cmd: string[], logFile: string, env: Record<string, string> = {}): Subprocess {
  const fd = openSync(logFile, "a");
  try {
    return spawnTracked(cmd, { stdout: fd, stderr: fd, env });
  } finally {
    closeSync(fd);
  }
}

async function stop(proc: Subprocess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill("SIGTERM");
  const exited = await Promise.race([proc.exited.then(() => true), Bun.sleep(5_000).then(() => false)]);
  if (!exited) {
    proc.kill("SIGKILL");
    await proc.exited;
  }
}

function cleanupNow(): void {
  for (const proc of children) proc.kill("SIGKILL");
  rmSync(tempRoot, { recursive: true, force: true });
}

function onSignal(signal: NodeJS.Signals): void {
  process.stderr.write(`\n${signal}: stopping children and removing ${tempRoot}\n`);
  cleanupNow();
  process.exit(130);
}

// ---------------------------------------------------------------- helpers

function parseOptions(): Options {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      rebuild: { type: "boolean", default: false },
      starts: { type: "string", default: "5" },
      connections: { type: "string", default: "50" },
      duration: { type: "string", default: "8" },
    },
  });
  const positive = (name: string, value: string) => {
    const n = Number(value);
    if (!(n > 0)) throw new Error(`--${name} expects a positive number, got "${value}"`);
    return n;
  };
  return {
    rebuild: values.rebuild,
    starts: Math.round(positive("starts", values.starts)),
    connections: Math.round(positive("connections", values.connections)),
    seconds: positive("duration", values.duration),
  };
}

function freshDir(name: string): string {
  const dir = join(tempRoot, `${name}-${Math.random().toString(36).slice(2, 8)}`);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Resident and peak resident memory of a process, in MiB. */
function memoryMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN);
  return { rss: kib("VmRSS") / 1024, peak: kib("VmHWM") / 1024 };
}

function tail(file: string, lines = 20): string {
  return existsSync(file) ? readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n") : "(no log)";
}

/** Polls until `url` answers 200; returns when that happened (performance.now()). */
async function waitForOk(url: string, server: Server): Promise<number> {
  const deadline = performance.now() + READY_TIMEOUT_MS;
  while (performance.now() < deadline) {
    if (server.proc.exitCode !== null) throw new Error(`${server.name} exited with ${server.proc.exitCode}:\n${tail(server.logFile)}`);
    const response = await fetch(url).catch(() => null);
    if (response?.status === 200) {
      await response.arrayBuffer();
      return performance.now();
    }
    await response?.arrayBuffer();
    await Bun.sleep(HEALTH_POLL_MS);
  }
  throw new Error(`${server.name} did not answer 200 on ${url} within ${READY_TIMEOUT_MS} ms:\n${tail(server.logFile)}`);
}

// ---------------------------------------------------------------- servers

async function ensureBinary(rebuild: boolean): Promise<void> {
  if (existsSync(BINARY) && !rebuild) return;
  const build = spawnTracked([BUN, join(ROOT, "scripts", "build.ts")]);
  if ((await build.exited) !== 0) throw new Error("bun scripts/build.ts failed");
}

/** Starts dist/parley and waits for /v1/health; `startupMs` is spawn → first 200. */
async function startParley(name: string, dataDir: string, env: Record<string, string> = {}): Promise<{ server: Server; startupMs: number }> {
  const port = freePort();
  const logFile = join(tempRoot, `${name}.log`);
  const started = performance.now();
  const proc = spawnServer([BINARY, "serve", "--host", "127.0.0.1", "--port", String(port), "--data-dir", dataDir], logFile, env);
  const server: Server = { name, proc, url: `http://127.0.0.1:${port}`, logFile };
  const ready = await waitForOk(`${server.url}/v1/health`, server);
  return { server, startupMs: ready - started };
}

async function startHello(): Promise<Server> {
  const port = freePort();
  const logFile = join(tempRoot, "hello.log");
  const proc = spawnServer([BUN, join(import.meta.dir, "hello.ts"), String(port)], logFile);
  const server: Server = { name: "bare Bun.serve", proc, url: `http://127.0.0.1:${port}`, logFile };
  await waitForOk(server.url, server);
  return server;
}

/** The minimal Elysia + better-sqlite3 program; it prints its API key once it listens. */
async function startReference(): Promise<{ server: Server; key: string }> {
  const port = freePort();
  const proc = spawnTracked([BUN, join(import.meta.dir, "reference.ts"), String(port), freshDir("reference")], { stdout: "pipe" });
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const { value } = await reader.read();
  const key = new TextDecoder().decode(value).trim();
  if (!key.startsWith("sk_")) throw new Error(`reference.ts did not start: ${key}`);
  return { server: { name: "reference", proc, url: `http://127.0.0.1:${port}`, logFile: "" }, key };
}

// ---------------------------------------------------------------- measurements

async function measureColdStarts(runs: number): Promise<{ fresh: number[]; existing: number[] }> {
  // One uncounted start so the first measured one does not pay for paging in the ~100 MiB binary.
  const reusedDir = freshDir("cold-existing");
  await stop((await startParley("cold-warmup", reusedDir, NO_RATE_LIMITS)).server.proc);

  const fresh: number[] = [];
  const existing: number[] = [];
  for (let i = 0; i < runs; i++) {
    const a = await startParley(`cold-fresh-${i}`, freshDir("cold-fresh"), NO_RATE_LIMITS);
    await stop(a.server.proc);
    fresh.push(a.startupMs);
    const b = await startParley(`cold-existing-${i}`, reusedDir, NO_RATE_LIMITS);
    await stop(b.server.proc);
    existing.push(b.startupMs);
  }
  return { fresh, existing };
}

async function postJson(url: string, body: unknown, token?: string): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
  const json = (await response.json()) as Record<string, unknown>;
  if (response.status !== 201) throw new Error(`POST ${url} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
}

/** Registers a user, one admin key plus SEED_KEYS more (the key list has pages) and 20 default agents. */
async function seed(baseUrl: string): Promise<{ jwt: string; apiKey: string }> {
  const registered = await postJson(`${baseUrl}/v1/auth/register`, { email: "bench@example.com", password: "bench-password-1", name: "Bench" });
  const jwt = registered.access_token as string;
  const created = await postJson(`${baseUrl}/v1/api-keys`, { name: "bench", scope: "admin" }, jwt);
  for (let i = 0; i < SEED_KEYS; i++) await postJson(`${baseUrl}/v1/api-keys`, { name: `filler ${i}`, scope: "read-only" }, jwt);
  for (let i = 0; i < 20; i++) await postJson(`${baseUrl}/v1/agents`, { name: `Agent ${i + 1}` }, created.key as string);
  return { jwt, apiKey: created.key as string };
}

async function runScenario(label: string, server: Server, path: string, token: string | null, options: Options, goal?: Scenario["goal"]): Promise<Scenario> {
  console.log(`${label}…`);
  const headers = token ? { authorization: `Bearer ${token}` } : undefined;
  await runWrk({ url: server.url + path, headers, connections: options.connections, seconds: 1 }); // warm-up
  const result = await runWrk({ url: server.url + path, headers, connections: options.connections, seconds: options.seconds });
  return { label, result, rssAfterMiB: memoryMiB(server.proc.pid).rss, goal };
}

/** A scenario to offer half its saturating rate again, on a server still running. */
interface HalfLoadTarget {
  scenario: Scenario;
  server: Server;
  path: string;
  token: string | null;
}

const HALF_LOAD_ROUNDS = 3;

/**
 * Offers each scenario half its saturating rate (independent arrivals), in turns over every server at
 * once, and keeps each one's median run: the box's noise (a neighbour's load, the hypervisor taking
 * CPU) comes and goes within minutes, and would otherwise fall on whichever server ran then.
 */
async function runHalfLoads(targets: HalfLoadTarget[], options: Options): Promise<HalfLoad[]> {
  const runs = targets.map(() => [] as WrkResult[]);
  for (let round = 1; round <= HALF_LOAD_ROUNDS; round++) {
    for (const [i, { scenario, server, path, token }] of targets.entries()) {
      const offered = scenario.result.requestsPerSecond / 2;
      console.log(`${scenario.label} at half load (${offered.toFixed(0)} req/s offered), round ${round}/${HALF_LOAD_ROUNDS}…`);
      runs[i].push(await runWrk({ url: server.url + path, headers: token ? { authorization: `Bearer ${token}` } : {}, connections: options.connections, seconds: options.seconds, ratePerSecond: offered }));
    }
  }
  return targets.map(({ scenario }, i) => {
    const byP99 = [...runs[i]].sort((a, b) => a.latencyMs.p99 - b.latencyMs.p99);
    return { label: scenario.label, offered: scenario.result.requestsPerSecond / 2, result: byP99[byP99.length >> 1], p99s: runs[i].map((run) => run.latencyMs.p99) };
  });
}

// ---------------------------------------------------------------- report

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const mib = (value: number) => `${value.toFixed(1)} MiB`;

function table(header: string[], rows: string[][]): string {
  const widths = header.map((_, i) => Math.max(header[i].length, ...rows.map((row) => row[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(line)].join("\n");
}

function scenarioTable(scenarios: Scenario[]): string {
  const byLabel = new Map(scenarios.map((scenario) => [scenario.label, scenario]));
  const rows = scenarios.map(({ label, result, rssAfterMiB, goal }) => {
    const against = goal ? byLabel.get(goal.against) : undefined;
    const ratio = against ? result.requestsPerSecond / against.result.requestsPerSecond : null;
    return [
      label,
      result.requestsPerSecond.toFixed(0),
      ms(result.latencyMs.p50),
      ms(result.latencyMs.p99),
      ms(result.latencyMs.max),
      String(result.errors),
      rssAfterMiB.toFixed(0),
      ratio === null ? "" : `${ratio.toFixed(2)}x ${goal!.against}`,
      ratio === null || !goal!.ratio ? "" : `>= ${goal!.ratio}x: ${ratio >= goal!.ratio ? "met" : "NOT met"}`,
    ];
  });
  return table(["scenario", "req/s", "p50 ms", "p99 ms", "max ms", "errors", "RSS MiB", "ratio", "goal"], rows);
}

function halfLoadTable(runs: HalfLoad[]): string {
  const rows = runs.map(({ label, offered, result, p99s }) => [
    label,
    offered.toFixed(0),
    result.requestsPerSecond.toFixed(0),
    ms(result.latencyMs.p50),
    ms(result.latencyMs.p90),
    ms(result.latencyMs.p99),
    p99s.map(ms).join(" / "),
    String(result.errors),
    `${(result.stolen * 100).toFixed(0)}%`,
    label.startsWith("Parley") ? `p99 < 5 ms: ${result.latencyMs.p99 < 5 ? "met" : "NOT met"}` : "",
  ]);
  return table(["scenario", "offered req/s", "served req/s", "p50 ms", "p90 ms", "p99 ms", "p99 of each run", "errors", "CPU stolen", "goal"], rows);
}

function serverErrors(logFile: string): string[] {
  return readFileSync(logFile, "utf8").split("\n").filter((line) => /\b(ERROR|WARN)\b/.test(line));
}

interface Results {
  cold: { fresh: number[]; existing: number[] };
  memory: { parleyIdle: Memory; parleyAfterLoad: Memory; helloIdle: Memory };
  scenarios: Scenario[];
  halfLoad: HalfLoad[];
  serverErrors: string[];
  login: LoginTiming;
}

/** Median login latency for a wrong password and for an e-mail nobody registered: they should match. */
interface LoginTiming {
  knownEmailMs: number;
  unknownEmailMs: number;
  runs: number;
}

async function measureLoginTiming(baseUrl: string, runs = 25): Promise<LoginTiming> {
  const attempt = async (email: string) => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email, password: "definitely-wrong" }),
    });
    await response.arrayBuffer();
    if (response.status !== 401) throw new Error(`login probe answered ${response.status}`);
    return performance.now() - started;
  };
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < runs; i++) {
    known.push(await attempt("bench@example.com"));
    unknown.push(await attempt(`nobody-${i}@example.com`));
  }
  return { knownEmailMs: median(known), unknownEmailMs: median(unknown), runs };
}

type Memory = ReturnType<typeof memoryMiB>;

function coldRow(label: string, values: number[]): string[] {
  return [label, ms(Math.min(...values)), ms(median(values)), ms(Math.max(...values))];
}

function printReport(results: Results, options: Options): void {
  const { cold, memory } = results;
  const cpu = cpus();
  const bunVersion = Bun.spawnSync([BUN, "--version"]).stdout.toString().trim();
  const binary = statSync(BINARY);

  console.log(`\n== machine: nproc ${navigator.hardwareConcurrency}, ${cpu[0]?.model ?? "unknown CPU"}, Linux ${release()}, bun ${bunVersion}`);
  console.log(`   binary ${BINARY}: ${mib(binary.size / 1024 / 1024)}, built ${binary.mtime.toISOString()}`);

  console.log(`\n== cold start: spawn → first 200 from GET /v1/health (polled every ${HEALTH_POLL_MS} ms), ${options.starts} runs each`);
  console.log(table(["data dir", "min ms", "median ms", "max ms"], [coldRow("fresh (creates DB, runs migrations)", cold.fresh), coldRow("existing", cold.existing)]));

  console.log("\n== memory (VmRSS; peak is VmHWM)");
  const memoryRow = (label: string, m: Memory) => [label, mib(m.rss), mib(m.peak)];
  console.log(
    table(
      ["process", "RSS", "peak"],
      [
        memoryRow("parley, idle after start", memory.parleyIdle),
        memoryRow("parley, idle 1 s after the load", memory.parleyAfterLoad),
        memoryRow("bare Bun.serve, idle", memory.helloIdle),
      ],
    ),
  );

  console.log(`\n== throughput and latency: wrk, ${options.connections} keep-alive connections, 1 s warm-up + ${options.seconds} s per scenario`);
  console.log("   (errors: non-2xx responses and socket errors; RSS of the server right after the scenario)");
  console.log(scenarioTable(results.scenarios));
  console.log(`\n== latency at half the saturating load: independent arrivals at that rate, ${HALF_LOAD_ROUNDS} runs of each taken in turns, the median run shown`);
  console.log("   (CPU stolen: the hypervisor's share of the box during that run; a stolen slice stops the server mid-request)");
  console.log(halfLoadTable(results.halfLoad));

  const { login } = results;
  console.log(`\n== failed login, median of ${login.runs} sequential attempts each (argon2id; the two should match)`);
  console.log(
    table(
      ["e-mail", "median ms"],
      [
        ["registered, wrong password", ms(login.knownEmailMs)],
        ["not registered", ms(login.unknownEmailMs)],
        ["ratio unknown / known", (login.unknownEmailMs / login.knownEmailMs).toFixed(2)],
      ],
    ),
  );

  if (results.serverErrors.length) {
    console.log(`\nparley logged ${results.serverErrors.length} warning/error line(s) under load, e.g.:`);
    console.log(results.serverErrors.slice(0, 5).join("\n"));
  }
}

// ---------------------------------------------------------------- runs

const BARE = "bare Bun.serve";
const REFERENCE_ROW = "reference: key + one row";
const REFERENCE_AGENTS = "reference: key + 20 agents";

// The references run at half load too: on a 2-core box shared with wrk, their p99 shows how much of
// a tail comes from the machine (scheduling, wrk itself) rather than from the server. They stay up
// until the half-load runs, which take turns with Parley's.
async function measureReferences(options: Options): Promise<{ scenarios: Scenario[]; halfLoad: HalfLoadTarget[]; helloIdle: Memory }> {
  const hello = await startHello();
  await Bun.sleep(500);
  const helloIdle = memoryMiB(hello.proc.pid);
  const bare = await runScenario(BARE, hello, "/", null, options);
  const reference = await startReference();
  const row = await runScenario(REFERENCE_ROW, reference.server, "/me", reference.key, options, { against: BARE, ratio: 0 });
  const agents = await runScenario(REFERENCE_AGENTS, reference.server, "/agents", reference.key, options);
  const halfLoad = [
    { scenario: bare, server: hello, path: "/", token: null },
    { scenario: row, server: reference.server, path: "/me", token: reference.key },
    { scenario: agents, server: reference.server, path: "/agents", token: reference.key },
  ];
  return { scenarios: [bare, row, agents], halfLoad, helloIdle };
}

async function measureParley(options: Options) {
  const { server } = await startParley("load", freshDir("load"), NO_RATE_LIMITS);
  await Bun.sleep(500);
  const parleyIdle = memoryMiB(server.proc.pid);
  const { jwt, apiKey } = await seed(server.url);
  console.log("parley: failed-login timing…");
  const login = await measureLoginTiming(server.url);
  const me = await runScenario("Parley GET /v1/auth/me (API key)", server, "/v1/auth/me", apiKey, options, { against: BARE, ratio: 0.45 });
  const agents = await runScenario("Parley GET /v1/agents?limit=20", server, "/v1/agents?limit=20", apiKey, options, { against: REFERENCE_AGENTS, ratio: 0.7 });
  const scenarios = [
    me,
    agents,
    await runScenario("Parley GET /v1/api-keys?limit=20 (API key)", server, "/v1/api-keys?limit=20", apiKey, options),
    await runScenario("Parley GET /v1/auth/me (JWT)", server, "/v1/auth/me", jwt, options),
  ];
  const halfLoad: HalfLoadTarget[] = [
    { scenario: me, server, path: "/v1/auth/me", token: apiKey },
    { scenario: agents, server, path: "/v1/agents?limit=20", token: apiKey },
  ];
  return { server, scenarios, halfLoad, login, parleyIdle };
}

// ---------------------------------------------------------------- main

async function main(): Promise<void> {
  const options = parseOptions();
  if (!wrkAvailable()) throw new Error("wrk is not installed: apt-get install wrk");
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  await ensureBinary(options.rebuild);

  console.log(`cold start: ${options.starts} runs each with a fresh and an existing data dir (plus one uncounted)…`);
  const cold = await measureColdStarts(options.starts);
  const references = await measureReferences(options);
  const parley = await measureParley(options);
  const halfLoad = await runHalfLoads([...references.halfLoad, ...parley.halfLoad], options);
  await Bun.sleep(1_000);
  const parleyAfterLoad = memoryMiB(parley.server.proc.pid);

  printReport(
    {
      cold,
      memory: { parleyIdle: parley.parleyIdle, parleyAfterLoad, helloIdle: references.helloIdle },
      scenarios: [...references.scenarios, ...parley.scenarios],
      halfLoad,
      serverErrors: serverErrors(parley.server.logFile),
      login: parley.login,
    },
    options,
  );
}

try {
  await main();
} catch (error) {
  process.stderr.write(`bench failed: ${(error as Error)?.stack ?? String(error)}\n`);
  process.exitCode = 1;
} finally {
  await Promise.all([...children].map(stop));
  rmSync(tempRoot, { recursive: true, force: true });
}
