// Voice runtime benchmark, in-process with the real call loop, database and recorder:
//  1. concurrency: N simultaneous calls with the full media path (µ-law decode, VAD, endpointing,
//     8→16 kHz resampling for the recogniser, stereo recording, encode) and instant speech engines;
//     the share of 20 ms frames that went out late, per N, and the largest N under 0.1 %;
//  2. platform turn latency: end of caller speech detected → first agent frame out, engines instant;
//  3. end to end with a model of 100 ms time-to-first-token and speech of 80 ms time-to-first-byte.
// Usage: bun scripts/bench/calls.ts [--levels 100,200,300,400] [--seconds 15]
import { mkdtempSync, rmSync } from "node:fs";
import { closeParley, createParley, type Parley } from "../../src/server.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { configOf } from "../../src/modules/agents/models.ts";
import { createAgent } from "../../src/modules/agents/service.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { createOutboundCall } from "../../src/modules/calls/service.ts";
import { buyNumber, assignNumber } from "../../src/modules/phone-numbers/service.ts";
import { createProvider } from "../../src/modules/providers/service.ts";
import type { CallLeg, LegEvent } from "../../src/telephony/types.ts";
import { concatPcm } from "../../src/voice/media/frames.ts";
import { encodeMulaw } from "../../src/voice/media/g711.ts";
import { callJournal } from "../../src/modules/calls/journal.ts";
import { CallSession } from "../../src/voice/runtime/call-session.ts";
import { mediaClock, type TickHandler } from "../../src/voice/media/media-clock.ts";
import { builtinTts } from "../../src/voice/speech/builtin/index.ts";
import type { RecognitionSession, SpeechToText, SynthesisOptions, TextToSpeech } from "../../src/voice/speech/types.ts";

const args = Object.fromEntries(process.argv.slice(2).join(" ").split("--").filter(Boolean).map((a) => a.trim().split(/\s+/)));
const LEVELS = String(args.levels ?? "100,200,300,400,500").split(",").map(Number);
const SECONDS = Number(args.seconds ?? 15);
/** A frame later than this is late: past one frame period a carrier's jitter buffer starts to run dry. */
const LATE_MS = 20;

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-calls-"));
const ctx = createParley({ config: buildConfig({ dataDir, logLevel: "error", allowPrivateUrls: "true" }), logger: createLogger("error") });
const { workspace } = createUser(ctx, { email: "bench@example.test", passwordHash: "unused", name: "Bench" });

// Real speech, synthesised once before anything is timed: what callers say, and what the agent says.
async function speech(text: string, rate: number): Promise<Int16Array> {
  const chunks: Int16Array[] = [];
  for await (const chunk of builtinTts().synthesize(text, { voice: "kal16", speed: 1, sampleRate: rate })) chunks.push(chunk);
  return concatPcm(chunks);
}
const callerLine = await speech("Hi, I would like to know your opening hours on Saturday, please.", 8000);
const agentLine = await speech("We are open from nine in the morning until five in the afternoon.", 8000);
/** The caller's loop: 2.4 s of speech then 4 s of silence, as µ-law frames. */
const callerFrames: Uint8Array[] = (() => {
  const pcm = concatPcm([callerLine, new Int16Array(8000 * 4)]);
  const frames: Uint8Array[] = [];
  for (let at = 0; at + 160 <= pcm.length; at += 160) frames.push(encodeMulaw(pcm.subarray(at, at + 160)));
  return frames;
})();

/** Speech engines that answer at once (or after a set delay), so only Parley's own work is measured. */
class InstantSpeech implements TextToSpeech {
  readonly id = "bench:instant-tts";
  constructor(private readonly firstByteMs = 0) {}
  async *synthesize(_text: string, options: SynthesisOptions): AsyncGenerator<Int16Array> {
    if (this.firstByteMs) await Bun.sleep(this.firstByteMs);
    if (options.signal?.aborted) return;
    yield agentLine;
  }
  async voices() {
    return [];
  }
}
class InstantRecognition implements SpeechToText {
  readonly id = "bench:instant-stt";
  start(): RecognitionSession {
    return { write() {}, finish: async () => ({ text: "What are your opening hours on Saturday?", confidence: 1 }), abort() {} };
  }
}

/** A carrier leg that plays the caller loop in real time and notes how late each frame left. */
class BenchLeg implements CallLeg {
  readonly format = { encoding: "pcmu" as const, sampleRate: 8000 };
  lateness: number[] = [];
  agentFrames = 0;
  private audio: ((frame: Uint8Array) => void) | null = null;
  private events: ((event: LegEvent) => void) | null = null;
  private position: number;
  private unsubscribe: (() => void) | null = null;
  measuring = false;

  constructor(offset: number) {
    this.position = offset % callerFrames.length;
  }
  onAudio(handler: (frame: Uint8Array) => void) {
    this.audio = handler;
  }
  onDtmf() {}
  onEvent(handler: (event: LegEvent) => void) {
    this.events = handler;
  }
  answer() {
    this.events?.({ type: "answered" });
    const tick: TickHandler = ({ scheduledAt }) => {
      if (this.measuring) this.lateness.push(performance.now() - scheduledAt);
      this.audio?.(callerFrames[this.position++ % callerFrames.length]);
    };
    this.unsubscribe = mediaClock.subscribe(tick);
  }
  sendAudio() {
    this.agentFrames++;
  }
  clearAudio() {}
  sendDtmf() {}
  async transfer() {}
  hangup() {
    this.unsubscribe?.();
  }
  end() {
    this.unsubscribe?.();
    this.events?.({ type: "ended", reason: "remote_hangup" });
  }
}

const number = await buyNumber(ctx, ctx.carriers, workspace.id, { area_code: "415" });

function startCall(agentId: string, tts: TextToSpeech, offset: number): { leg: BenchLeg; session: CallSession; callId: string } {
  const call = createOutboundCall(ctx, ctx.carriers, workspace.id, { agent_id: agentId, to: "+12125550150", from: number.number, simulation: { recognition: "simulated" } });
  const leg = new BenchLeg(offset);
  const session = new CallSession({
    ctx,
    call,
    journal: callJournal(ctx, call),
    brains: ctx.services.brains,
    agent: agentConfigs.get(agentId)!,
    leg,
    carrierKind: "simulated",
    tts,
    stt: new InstantRecognition(),
    sttSampleRate: 16_000, // a wideband recogniser: the 8→16 kHz resampler runs on every caller frame
    screenForMachine: false,
    recordingPath: join(dataDir, `${call.id}.wav`),
    clock: mediaClock,
  });
  session.start();
  leg.answer();
  return { leg, session, callId: call.id };
}

const agentConfigs = new Map<string, ReturnType<typeof configOf>>();
function agent(input: Parameters<typeof createAgent>[2]) {
  const row = createAgent(ctx, workspace.id, input, null).row;
  agentConfigs.set(row.id, configOf(row));
  return row.id;
}

const percentile = (values: number[], p: number) => {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : "–");

function latencies(ctx: Parley, callIds: string[], field: string): number[] {
  const rows = ctx.sqlite
    .prepare(`SELECT data FROM call_events WHERE type = 'latency' AND call_id IN (${callIds.map(() => "?").join(",")})`)
    .all(...callIds) as { data: string }[];
  return rows.map((row) => JSON.parse(row.data)[field]).filter((v): v is number => typeof v === "number");
}

async function runLevel(count: number, agentId: string, tts: TextToSpeech, seconds: number) {
  const calls = [];
  for (let i = 0; i < count; i++) {
    calls.push(startCall(agentId, tts, Math.floor((i * callerFrames.length) / count)));
    if (i % 25 === 24) await Bun.sleep(20); // stagger starts like real arrivals
  }
  await Bun.sleep(2000); // greetings out of the way
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  for (const call of calls) call.leg.measuring = true;
  await Bun.sleep(seconds * 1000);
  for (const call of calls) call.leg.measuring = false;
  const cpu = process.cpuUsage(cpuBefore);
  const wall = performance.now() - wallBefore;
  for (const call of calls) call.leg.end();
  await Promise.all(calls.map((call) => call.session.done));
  const lateness = calls.flatMap((call) => call.leg.lateness);
  const late = lateness.filter((ms) => ms > LATE_MS).length;
  return {
    count,
    frames: lateness.length,
    latePercent: (100 * late) / Math.max(1, lateness.length),
    p50: percentile(lateness, 50),
    p99: percentile(lateness, 99),
    max: Math.max(...lateness),
    cpuPercent: (100 * (cpu.user + cpu.system)) / 1000 / wall,
    callIds: calls.map((call) => call.callId),
  };
}

const flowAgent = agent({ name: "Bench flow", first_message: "Hello, thanks for calling. How can I help?" });

console.log(`1. concurrent calls, full media path, instant engines (${SECONDS} s each; a frame is late past ${LATE_MS} ms)`);
console.log("   calls   frames    late %   p50 ms   p99 ms   max ms   CPU % (of one core)");
let best = 0;
for (const count of LEVELS) {
  const result = await runLevel(count, flowAgent, new InstantSpeech(), SECONDS);
  console.log(
    `   ${String(count).padStart(5)} ${String(result.frames).padStart(8)} ${fmt(result.latePercent, 3).padStart(9)} ${fmt(result.p50).padStart(8)} ${fmt(result.p99).padStart(8)} ${fmt(result.max).padStart(8)} ${fmt(result.cpuPercent, 0).padStart(8)}`,
  );
  if (result.latePercent < 0.1) best = count;
  if (result.latePercent > 2) break;
}
console.log(`   → largest tested count with late frames under 0.1 %: ${best || "none"} (goal ≥ 300)`);

console.log("\n2. platform turn latency (end of speech detected → first agent frame out; engines instant)");
for (const count of [10, Math.max(best, 10)]) {
  const result = await runLevel(count, flowAgent, new InstantSpeech(), 20);
  const values = latencies(ctx, result.callIds, "end_to_end_ms");
  console.log(`   ${String(count).padStart(4)} calls: ${values.length} turns, p50 ${fmt(percentile(values, 50), 0)} ms, p95 ${fmt(percentile(values, 95), 0)} ms, max ${fmt(Math.max(...values), 0)} ms (goal p95 < 30 ms; includes waiting for the next 20 ms tick)`);
}

console.log("\n3. end to end with a model of 100 ms to first token and speech of 80 ms to first byte");
const model = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(request) {
    if (!new URL(request.url).pathname.endsWith("/chat/completions")) return new Response("not found", { status: 404 });
    await request.json();
    const encoder = new TextEncoder();
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
      encoder.encode(`data: ${JSON.stringify({ id: "b", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`);
    return new Response(
      new ReadableStream({
        async start(controller) {
          await Bun.sleep(100);
          for (const piece of ["We are open ", "from nine ", "until five. ", "Anything else?"]) {
            controller.enqueue(chunk({ content: piece }));
            await Bun.sleep(15);
          }
          controller.enqueue(chunk({}, "stop"));
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  },
});
const provider = createProvider(ctx, workspace.id, { name: "bench model", kind: "openai-compatible", base_url: `http://127.0.0.1:${model.port}/v1` });
const llmAgent = agent({ name: "Bench LLM", first_message: "Hello, how can I help?", brain: { type: "llm", provider_id: provider.id, model: "bench" } });
assignNumber(ctx, workspace.id, number.id, llmAgent);
const e2e = await runLevel(20, llmAgent, new InstantSpeech(80), 20);
const endToEnd = latencies(ctx, e2e.callIds, "end_to_end_ms");
const ttft = latencies(ctx, e2e.callIds, "llm_ttft_ms");
const ttfb = latencies(ctx, e2e.callIds, "tts_ttfb_ms");
console.log(
  `   20 calls: ${endToEnd.length} turns; end to end p50 ${fmt(percentile(endToEnd, 50), 0)} ms, p95 ${fmt(percentile(endToEnd, 95), 0)} ms (goal < 500 ms); model TTFT p50 ${fmt(percentile(ttft, 50), 0)} ms, speech TTFB p50 ${fmt(percentile(ttfb, 50), 0)} ms; plus the agent's endpointing delay (600 ms by default) after the caller stops`,
);

model.stop(true);
closeParley(ctx);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
