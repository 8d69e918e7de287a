// Added latency of browser voice sessions: N WebSocket clients (this script, as browsers would) each
// open a session with a real token through Parley's HTTP server and send a 20 ms PCM16 frame every
// 20 ms; the session's leg hands frames to a probe in place of the agent (engines excluded), and the
// probe sends a frame back on the media clock, as a call session does. Timed: client socket → leg's
// audio handler (in), leg's sendAudio → client socket (out). At 48 kHz frames are matched by count,
// since resampling rewrites their bytes.
// Usage: bun scripts/bench/browser-voice.ts [--sessions 1,50] [--seconds 10] [--rates 16000,48000]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { createAgent } from "../../src/modules/agents/service.ts";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import type { CallLeg } from "../../src/telephony/types.ts";
import { mediaClock } from "../../src/voice/media/media-clock.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { sessions: { type: "string", default: "1,50" }, seconds: { type: "string", default: "10" }, rates: { type: "string", default: "16000,48000" } } });
const LEVELS = values.sessions.split(",").map(Number);
const RATES = values.rates.split(",").map(Number);
const SECONDS = Number(values.seconds);
const WARM_UP_MS = 1000;

/** Send times by frame number; a frame that arrives is matched to the oldest unmatched one. */
class Probe {
  private readonly sentAt: number[] = [];
  private matched = 0;
  readonly samples: number[] = [];
  recording = false;
  sent(): void {
    this.sentAt.push(performance.now());
  }
  arrived(): void {
    const at = this.sentAt[this.matched++];
    if (at !== undefined && this.recording) this.samples.push(performance.now() - at);
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-browser-"));
const ctx = createParley({
  config: buildConfig({ dataDir, host: "127.0.0.1", port: "0", logLevel: "error", publicRateLimitPerMinute: "100000" }),
  logger: createLogger("error"),
});
const { workspace } = createUser(ctx, { email: "bench@example.test", passwordHash: "unused", name: "Bench" });
const agent = createAgent(ctx, workspace.id, { name: "Probe" }, null).row;
// The probe stands in for the agent: the session route, token, socket and leg are Parley's own.
const legs: CallLeg[] = [];
let calls = 0;
ctx.services.webCalls = {
  answer(_workspaceId, _request, makeLeg) {
    const id = `call_bench${++calls}`;
    legs.push(makeLeg(id));
    return id;
  },
};
const server = startServer(ctx);

interface Session {
  socket: WebSocket;
  leg: CallLeg;
  inbound: Probe;
  outbound: Probe;
  frame: Uint8Array;
}

async function open(rate: number): Promise<Session> {
  const { token, url } = ctx.services.realtimeToken(workspace.id, { agentId: agent.id });
  void token;
  const socket = new WebSocket(`${url.replace(/^ws:\/\/[^/]+/, server.url.replace(/^http/, "ws"))}&rate=${rate}`);
  socket.binaryType = "arraybuffer";
  const inbound = new Probe();
  const outbound = new Probe();
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("message", (message) => (typeof message.data === "string" ? JSON.parse(message.data).type === "session" && resolve() : outbound.arrived()));
    socket.addEventListener("error", () => reject(new Error("the session did not open")));
  });
  const leg = legs.at(-1)!;
  leg.onAudio(() => inbound.arrived());
  return { socket, leg, inbound, outbound, frame: new Uint8Array((rate / 50) * 2) };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const ms = (n: number) => (Number.isFinite(n) ? n.toFixed(2) : "–").padStart(6);

async function measure(rate: number, count: number): Promise<number> {
  const live: Session[] = [];
  for (let i = 0; i < count; i++) live.push(await open(rate));
  const outFrame = new Uint8Array(640);
  const browserTimer = setInterval(() => {
    for (const s of live) {
      s.inbound.sent();
      s.socket.send(s.frame);
    }
  }, 20);
  const stopClock = mediaClock.subscribe(() => {
    for (const s of live) {
      s.outbound.sent();
      s.leg.sendAudio(outFrame);
    }
  });
  await Bun.sleep(WARM_UP_MS);
  for (const s of live) s.inbound.recording = s.outbound.recording = true;
  await Bun.sleep(SECONDS * 1000);
  clearInterval(browserTimer);
  stopClock();
  for (const s of live) s.socket.close();
  const inbound = live.flatMap((s) => s.inbound.samples).sort((a, b) => a - b);
  const outbound = live.flatMap((s) => s.outbound.samples).sort((a, b) => a - b);
  console.log(
    `   ${`${rate / 1000} kHz`.padEnd(8)} ${String(count).padStart(8)}   ${ms(percentile(inbound, 50))} ${ms(percentile(inbound, 95))} ${ms(percentile(inbound, 99))}   ${ms(percentile(outbound, 50))} ${ms(percentile(outbound, 95))} ${ms(percentile(outbound, 99))}   ${String(inbound.length + outbound.length).padStart(8)}`,
  );
  await Bun.sleep(500);
  return Math.max(percentile(inbound, 95), percentile(outbound, 95));
}

console.log(`Latency a browser voice session adds to each 20 ms frame, engines excluded (${SECONDS} s per row after ${WARM_UP_MS} ms warm-up)`);
console.log("   rate     sessions    in: p50    p95    p99 ms   out: p50    p95    p99 ms     frames");
let worst = 0;
for (const count of LEVELS) for (const rate of RATES) worst = Math.max(worst, await measure(rate, count));
console.log(`   → worst p95 added latency: ${worst.toFixed(2)} ms (goal < 10 ms)`);
await server.stop();
closeParley(ctx);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
