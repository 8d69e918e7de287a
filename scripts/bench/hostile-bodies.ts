// What hostile bodies cost: the time to refuse deeply nested JSON and a 1 MiB array of wrong types, and
// what GET /v1/health gets meanwhile, idle and while clients (in processes of their own) send 50,000-level
// bodies as fast as they are answered.
// Usage: bun scripts/bench/hostile-bodies.ts [--seconds 10] [--clients 4]
//        (internal: --flood URL PATH SECONDS TOKEN, one sending process)
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnParley } from "./spawn-parley.ts";

const argv = process.argv.slice(2);
const arrays = (levels: number, inner = "") => "[".repeat(levels) + inner + "]".repeat(levels);
const objects = (levels: number) => '{"a":'.repeat(levels) + "1" + "}".repeat(levels);

if (argv[0] === "--flood") {
  const [url, path, seconds, token] = argv.slice(1);
  const body = path === "/v1/auth/login" ? arrays(50_000) : objects(50_000);
  const headers: Record<string, string> = { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) };
  const statuses: Record<string, number> = {};
  const until = Date.now() + Number(seconds) * 1000;
  while (Date.now() < until) {
    const res = await fetch(url + path, { method: "POST", headers, body });
    await res.arrayBuffer();
    statuses[res.status] = (statuses[res.status] ?? 0) + 1;
  }
  process.stdout.write(JSON.stringify(statuses));
  process.exit(0);
}

const args = Object.fromEntries(argv.join(" ").split("--").filter(Boolean).map((a) => a.trim().split(/\s+/)));
const SECONDS = Number(args.seconds ?? 10);
const CLIENTS = Number(args.clients ?? 4);

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-hostile-"));
const parley = await spawnParley(dataDir, { PARLEY_PUBLIC_RATE_LIMIT_PER_MINUTE: "1000000", PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" });
const cleanup = () => {
  parley.process.kill();
  rmSync(dataDir, { recursive: true, force: true });
};
process.on("SIGINT", () => (cleanup(), process.exit(130)));

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const ms = (value: number) => `${value.toFixed(2)} ms`;

async function timed(request: () => Promise<Response>): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const res = await request();
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status };
}

async function series(label: string, count: number, request: () => Promise<Response>): Promise<number[]> {
  const times: number[] = [];
  const statuses = new Set<number>();
  for (let i = 0; i < count; i++) {
    const { ms: took, status } = await timed(request);
    times.push(took);
    statuses.add(status);
  }
  console.log(`${label.padEnd(52)} p50 ${ms(percentile(times, 0.5))}  p99 ${ms(percentile(times, 0.99))}  max ${ms(Math.max(...times))}  (${[...statuses].join(", ")})`);
  return times;
}

try {
  const register = await fetch(`${parley.url}/v1/auth/register`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: `bench-${Date.now()}@example.com`, password: "a long password" }) });
  const token = ((await register.json()) as { access_token: string }).access_token;
  const post = (path: string, body: string, auth = false) => () =>
    fetch(parley.url + path, { method: "POST", headers: { "content-type": "application/json", ...(auth ? { authorization: `Bearer ${token}` } : {}) }, body });
  const health = () => fetch(`${parley.url}/v1/health`);
  const wrongTypes = `{"url":"https://example.com/hook","events":[${Array(500_000).fill("1").join(",")}]}`;

  console.log(`== hostile bodies (Parley from source, loopback; ${CLIENTS} flooding clients for ${SECONDS} s)`);
  await series("warm-up", 200, health);
  const idle = await series("GET /v1/health, idle", 2000, health);
  await series("50,000 levels of [ (97 KiB), before auth: 400", 300, post("/v1/auth/login", arrays(50_000)));
  await series('50,000 levels of {"a": (244 KiB), signed in: 400', 300, post("/v1/agents", objects(50_000), true));
  await series("1 MiB array of wrong types, signed in: 422", 50, post("/v1/webhooks", wrongTypes, true));

  const floods = Array.from({ length: CLIENTS }, (_, i) =>
    Bun.spawn([process.execPath, import.meta.path, "--flood", parley.url, i % 2 ? "/v1/agents" : "/v1/auth/login", String(SECONDS), i % 2 ? token : ""], { stdout: "pipe", stderr: "inherit" }),
  );
  await Bun.sleep(300);
  const flooded: number[] = [];
  const until = Date.now() + (SECONDS - 1) * 1000;
  while (Date.now() < until) {
    flooded.push((await timed(health)).ms);
    await Bun.sleep(5);
  }
  const counts = await Promise.all(floods.map(async (child) => JSON.parse(await new Response(child.stdout).text()) as Record<string, number>));
  const answered: Record<string, number> = {};
  for (const count of counts) for (const [status, n] of Object.entries(count)) answered[status] = (answered[status] ?? 0) + n;
  const sent = Object.values(answered).reduce((a, b) => a + b, 0);
  console.log(`${`GET /v1/health under the flood (${flooded.length} requests)`.padEnd(52)} p50 ${ms(percentile(flooded, 0.5))}  p99 ${ms(percentile(flooded, 0.99))}  max ${ms(Math.max(...flooded))}`);
  console.log(`flood: ${sent} bodies answered in ${SECONDS} s (${Math.round(sent / SECONDS)}/s), by status ${JSON.stringify(answered)}`);
  console.log(`\n== health p99 under the flood / idle: ${(percentile(flooded, 0.99) / percentile(idle, 0.99)).toFixed(1)}×`);
} finally {
  cleanup();
}
