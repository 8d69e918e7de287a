// Widget chat throughput with a flow brain: many visitors (each its own address, through a trusted
// proxy's X-Forwarded-For) post messages to POST /v1/widgets/{id}/chat over HTTP, as their pages would,
// each keeping its session for a conversation of a few turns. Prints messages/s and latency percentiles,
// and the embed.js size the visitors download.
// Usage: bun scripts/bench/widget-chat.ts [--seconds 10] [--concurrency 32]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { createAgent } from "../../src/modules/agents/service.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import { createWidget } from "../../src/modules/widgets/service.ts";
import { embedScript } from "../../src/web/assets.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { seconds: { type: "string", default: "10" }, concurrency: { type: "string", default: "32" } } });
const SECONDS = Number(values.seconds);
const CONCURRENCY = Number(values.concurrency);
const TURNS = 10;
const ORIGIN = "https://shop.example.com";

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-widget-"));
const ctx = createParley({
  config: buildConfig({ dataDir, host: "127.0.0.1", port: "0", logLevel: "error", publicRateLimitPerMinute: "1000000", trustedProxies: "127.0.0.1" }),
  logger: createLogger("error"),
});
const server = startServer(ctx);
const { workspace, user } = createUser(ctx, { email: "bench@example.test", passwordHash: "unused", name: "Bench" });
const flow = {
  start: "ask",
  nodes: {
    ask: { type: "ask", text: "What would you like to know?", slot: { name: "topic", type: "string" }, next: "answer" },
    answer: { type: "say", text: "We are open nine to six on weekdays. You asked about {{topic}}.", next: "ask" },
  },
};
const agent = createAgent(ctx, workspace.id, { name: "Shop desk", brain: { type: "flow", flow } } as never, null).row;
const widget = createWidget(ctx, workspace.id, { agent_id: agent.id, name: "Bench", allowed_origins: [ORIGIN], mode: "chat" } as never, ctx.services.agentConfig);
void user;
const url = `${server.url}/v1/widgets/${widget.id}/chat`;

let visitors = 0;
const latencies: number[] = [];
let failures = 0;
let recording = false;

/** One visitor after another on this connection: a session of TURNS messages each. */
async function visitorLoop(until: () => boolean): Promise<void> {
  while (!until()) {
    const address = `10.${(++visitors >> 16) & 255}.${(visitors >> 8) & 255}.${visitors & 255}`;
    let sessionId: string | undefined;
    for (let turn = 0; turn < TURNS && !until(); turn++) {
      const started = performance.now();
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN, "x-forwarded-for": address },
        body: JSON.stringify({ message: `question ${turn} about parking`, ...(sessionId ? { session_id: sessionId } : {}) }),
      });
      const body = (await res.json()) as { session_id?: string; reply?: string };
      if (res.status !== 200 || !body.reply) {
        failures++;
        break;
      }
      sessionId = body.session_id;
      if (recording) latencies.push(performance.now() - started);
    }
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
// Warm-up, then the measured window.
let stop = false;
const warm = Array.from({ length: CONCURRENCY }, () => visitorLoop(() => stop));
await Bun.sleep(1000);
stop = true;
await Promise.all(warm);
recording = true;
const deadline = performance.now() + SECONDS * 1000;
const started = performance.now();
await Promise.all(Array.from({ length: CONCURRENCY }, () => visitorLoop(() => performance.now() >= deadline)));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const embed = embedScript();
console.log(`Widget chat, flow brain: ${CONCURRENCY} concurrent visitors over HTTP, ${TURNS}-message sessions, ${SECONDS} s after a 1 s warm-up`);
console.log(`   messages/s ${(latencies.length / elapsed).toFixed(0)} (goal ≥ 1,000)   latency p50 ${percentile(latencies, 50).toFixed(2)} ms  p95 ${percentile(latencies, 95).toFixed(2)} ms  p99 ${percentile(latencies, 99).toFixed(2)} ms   failures ${failures}   sessions ${visitors}`);
console.log(`   embed.js: ${embed.body.length} bytes, ${embed.gzipBytes} bytes gzipped (budget 15,360)`);
await server.stop();
closeParley(ctx);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
