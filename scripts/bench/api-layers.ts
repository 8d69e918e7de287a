// Where an authenticated request's time goes. In one process: a real Parley (temporary data dir, no
// rate-limit refusals) and, beside it, the same GET /v1/auth/me answered by Bun.serve routes that add
// Parley's own request layers one at a time (request meta, credential admission, audit row). wrk loads
// each in turn; the figure that matters is CPU µs per request per thread, read from /proc, which a
// noisy 2-core box disturbs far less than req/s. Needs `wrk`.
// Usage: bun scripts/bench/api-layers.ts [--rounds 3] [--seconds 4]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { createApp } from "../../src/app.ts";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { auditRequest } from "../../src/http/audit-trail.ts";
import { admission } from "../../src/http/auth.ts";
import { createRequestMeta } from "../../src/http/request-meta.ts";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import { median } from "./stats.ts";
import { runWrk, wrkAvailable } from "./wrk.ts";

const { values } = parseArgs({ options: { rounds: { type: "string", default: "3" }, seconds: { type: "string", default: "4" } } });
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const PATH = "/v1/auth/me";
if (!wrkAvailable()) throw new Error("wrk is not installed (apt install wrk)");

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-layers-"));
const config = buildConfig({ host: "127.0.0.1", port: "0", dataDir, logLevel: "error", rateLimitPerMinute: "100000000", publicRateLimitPerMinute: "100000000" });
const ctx = createParley({ config, logger: createLogger("error") });
const server = startServer(ctx);
const base = `http://127.0.0.1:${server.port}`;
const post = async (path: string, body: unknown, token?: string) =>
  (await (await fetch(base + path, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) })).json()) as Record<string, string>;
const { access_token } = await post("/v1/auth/register", { email: "bench@example.test", password: "bench-password-1", name: "Bench" });
const { key } = await post("/v1/api-keys", { name: "bench", scope: "admin" }, access_token);
const headers = { authorization: `Bearer ${key}` };
// Every layer answers the body the real route answers, so only the work differs.
const body = await (await fetch(base + PATH, { headers })).text();

// The RouteIndex the audit layer names operations from (a second app over the same context, never served).
const { routes } = createApp(ctx, ctx.services);
const admit = admission(ctx);

type Layer = "bare" | "meta" | "auth" | "audit";
const ORDER: Layer[] = ["bare", "meta", "auth", "audit"];
const layered = (layer: Layer) =>
  Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    routes: {
      [PATH]: {
        GET: async (request, srv) => {
          if (layer === "bare") return new Response(body, { headers: { "content-type": "application/json" } });
          const meta = createRequestMeta(request, srv.requestIP(request)?.address, ctx.config, ctx.clock.now());
          if (layer !== "meta") await admit(request, "read");
          if (layer === "audit") auditRequest(ctx, routes, request, PATH, 200);
          return new Response(body, { headers: { ...meta.headers, "content-type": "application/json" } });
        },
      },
    },
    fetch: () => new Response("not found", { status: 404 }),
  });
const targets: { name: string; url: string }[] = [
  ...ORDER.map((layer) => ({ name: layer, url: `http://127.0.0.1:${layered(layer).port}${PATH}` })),
  { name: "parley", url: base + PATH },
];

/** CPU time (µs) per thread of this process: the main thread, the write-behind thread, everything else. */
function threadCpu(): { main: number; writer: number; other: number } {
  const tick = 1e6 / 100; // USER_HZ
  const out = { main: 0, writer: 0, other: 0 };
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const micros = (Number(fields[11]) + Number(fields[12])) * tick;
      const name = readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim();
      if (Number(tid) === process.pid) out.main += micros;
      else if (name === "Worker") out.writer += micros;
      else out.other += micros;
    } catch {
      // a thread that ended between the listing and the read
    }
  }
  return out;
}

interface Figure {
  rps: number;
  main: number;
  writer: number;
  other: number;
}
const figures = new Map<string, Figure[]>();

for (const target of targets) await runWrk({ url: target.url, headers, seconds: 1 }); // warm up every JIT path
for (let round = 1; round <= ROUNDS; round++) {
  process.stdout.write(`round ${round}/${ROUNDS}:`);
  for (const target of targets) {
    const before = threadCpu();
    const result = await runWrk({ url: target.url, headers, seconds: SECONDS });
    const after = threadCpu();
    if (result.errors > 0) throw new Error(`${target.name}: ${result.errors} failed requests`);
    const per = (field: keyof ReturnType<typeof threadCpu>) => (after[field] - before[field]) / result.requests;
    const list = figures.get(target.name) ?? [];
    list.push({ rps: result.requestsPerSecond, main: per("main"), writer: per("writer"), other: per("other") });
    figures.set(target.name, list);
    process.stdout.write(` ${target.name}`);
  }
  process.stdout.write("\n");
}

await server.stop();
closeParley(ctx);
rmSync(dataDir, { recursive: true, force: true });

// Medians: one disturbed run of a few seconds must not decide a figure.
const summary = targets.map(({ name }) => {
  const runs = figures.get(name)!;
  return { name, rps: median(runs.map((r) => r.rps)), main: median(runs.map((r) => r.main)), writer: median(runs.map((r) => r.writer)), other: median(runs.map((r) => r.other)) };
});
const f = (n: number) => n.toFixed(1).padStart(6);
console.log(`\n== GET ${PATH} with an API key, layer by layer (${ROUNDS} rounds of ${SECONDS} s, medians), bun ${Bun.version}, ${navigator.hardwareConcurrency} cores`);
console.log("layer       req/s   main µs/req  writer µs/req  other µs/req   main Δ   ×bare req/s");
const bare = summary[0];
let previous = bare.main;
for (const row of summary) {
  console.log(`${row.name.padEnd(8)} ${row.rps.toFixed(0).padStart(8)}   ${f(row.main)}        ${f(row.writer)}         ${f(row.other)}      ${f(row.main - previous)}   ${(row.rps / bare.rps).toFixed(2)}`);
  previous = row.main;
}
console.log("bare: the same body from a Bun.serve route; meta: + request id, client IP, headers; auth: + key admission (hash, cache,");
console.log("rate limit, suspension, scope); audit: + the audit row (queued here, committed by the writer thread); parley: the real route.");
process.exit(0);
