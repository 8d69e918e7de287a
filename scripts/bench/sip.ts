// SIP trunk benchmark: N simultaneous calls from Parley over a SIP trunk to a far end in its own
// process (scripts/bench/sip-far-end.ts), RTP both ways over loopback UDP, the full media path
// (jitter buffer, µ-law decode, VAD, endpointing, stereo recording, encode) with instant speech
// engines so only Parley's own work is measured. Reported per N: frames Parley sent that the far end
// got lost or late, frames the far end sent that Parley's jitter buffer lost or got late, and the
// media clock's own lateness.
// Usage: bun scripts/bench/sip.ts [--levels 50,100,200,300] [--seconds 15]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { configOf } from "../../src/modules/agents/models.ts";
import { createAgent } from "../../src/modules/agents/service.ts";
import { createUser } from "../../src/modules/auth/service.ts";
import { createCarrierConnection } from "../../src/modules/carriers/service.ts";
import { callJournal } from "../../src/modules/calls/journal.ts";
import { createOutboundCall } from "../../src/modules/calls/service.ts";
import { assignNumber, importNumber } from "../../src/modules/phone-numbers/service.ts";
import { closeParley, createParley } from "../../src/server.ts";
import type { SipCallLeg } from "../../src/telephony/sip/call-leg.ts";
import { concatPcm } from "../../src/voice/media/frames.ts";
import { mediaClock } from "../../src/voice/media/media-clock.ts";
import { CallSession } from "../../src/voice/runtime/call-session.ts";
import { builtinTts } from "../../src/voice/speech/builtin/index.ts";
import type { RecognitionSession, SpeechToText, SynthesisOptions, TextToSpeech } from "../../src/voice/speech/types.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { levels: { type: "string", default: "50,100,200,300" }, seconds: { type: "string", default: "15" } } });
const LEVELS = values.levels.split(",").map(Number);
const SECONDS = Number(values.seconds);

// The far end, in its own process: it answers, streams, and counts what it receives.
const far = Bun.spawn([process.execPath, join(import.meta.dir, "sip-far-end.ts"), "0"], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
const lines = (async function* () {
  let buffer = "";
  for await (const chunk of far.stdout as ReadableStream<Uint8Array>) {
    buffer += new TextDecoder().decode(chunk);
    let nl: number;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      yield buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
    }
  }
})();
const ask = async (command?: string) => {
  if (command) {
    far.stdin.write(`${command}\n`);
    far.stdin.flush();
  }
  return JSON.parse((await lines.next()).value as string);
};
const { port: farPort } = await ask();

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-sip-"));
const ctx = createParley({ config: buildConfig({ dataDir, logLevel: "error", allowPrivateUrls: "true" }), logger: createLogger("error") });
const { workspace } = createUser(ctx, { email: "bench@example.test", passwordHash: "unused", name: "Bench" });
const connection = createCarrierConnection(ctx, ctx.carriers, workspace.id, {
  name: "bench trunk",
  kind: "sip",
  settings: { trunk: `127.0.0.1:${farPort}`, listen_host: "127.0.0.1", listen_port: 0, rtp_port_min: 20000, rtp_port_max: 29998, keepalive_seconds: 0 },
});
const number = await importNumber(ctx, ctx.carriers, workspace.id, { number: "+14155550100", carrier: connection.id });
const agentRow = createAgent(ctx, workspace.id, { name: "Bench", first_message: "Hello, thanks for calling. How can I help?" }, null).row;
assignNumber(ctx, workspace.id, number.id, agentRow.id);
const agentConfig = configOf(agentRow);

async function speech(text: string): Promise<Int16Array> {
  const chunks: Int16Array[] = [];
  for await (const chunk of builtinTts().synthesize(text, { voice: "kal16", speed: 1, sampleRate: 8000 })) chunks.push(chunk);
  return concatPcm(chunks);
}
const agentLine = await speech("Hello, thanks for calling. We are open from nine until five.");
class InstantSpeech implements TextToSpeech {
  readonly id = "bench:instant-tts";
  async *synthesize(_text: string, options: SynthesisOptions): AsyncGenerator<Int16Array> {
    if (!options.signal?.aborted) yield agentLine;
  }
  async voices() {
    return [];
  }
}
class InstantRecognition implements SpeechToText {
  readonly id = "bench:instant-stt";
  start(): RecognitionSession {
    return { write() {}, finish: async () => ({ text: "What are your opening hours?", confidence: 1 }), abort() {} };
  }
}

const carrier = ctx.carriers.carrier(workspace.id, connection.id)!;
function startCall(): { leg: SipCallLeg; session: CallSession } {
  const call = createOutboundCall(ctx, ctx.carriers, workspace.id, { agent_id: agentRow.id, to: "+12125550150", from: number.number });
  const leg = carrier.dial({ callId: call.id, from: number.number, to: "+12125550150", options: {} }) as SipCallLeg;
  const session = new CallSession({
    ctx,
    call,
    journal: callJournal(ctx, call),
    brains: ctx.services.brains,
    agent: agentConfig,
    leg,
    carrierKind: "sip",
    tts: new InstantSpeech(),
    stt: new InstantRecognition(),
    sttSampleRate: 16_000,
    screenForMachine: false,
    recordingPath: join(dataDir, `${call.id}.wav`),
    clock: mediaClock,
  });
  session.start();
  return { leg, session };
}

const fmt = (n: number, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : "–");
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

console.log(`SIP calls over loopback UDP, full media path, instant engines (${SECONDS} s measured per level; late = > 20 ms behind its place)`);
console.log("   calls  answered   out: frames  lost %  late %     in: frames  lost %  late %   clock p99 ms   CPU % (one core)");
let best = 0;
for (const count of LEVELS) {
  const calls: ReturnType<typeof startCall>[] = [];
  for (let i = 0; i < count; i++) {
    calls.push(startCall());
    if (i % 20 === 19) await Bun.sleep(30);
  }
  await Bun.sleep(3000);
  const answered = calls.filter((c) => c.leg.dialog !== null).length;
  const before = calls.map((c) => c.leg.mediaStats());
  const lateness: number[] = [];
  const probe = mediaClock.subscribe(({ lateMs }) => lateness.push(lateMs));
  await ask("measure").catch(() => {});
  const cpu = process.cpuUsage();
  const wall = performance.now();
  await Bun.sleep(SECONDS * 1000);
  const used = process.cpuUsage(cpu);
  const cpuPercent = (100 * (used.user + used.system)) / 1000 / (performance.now() - wall);
  probe();
  const out = await ask("report");
  let inFrames = 0;
  let inLost = 0;
  let inLate = 0;
  calls.forEach((c, i) => {
    const now = c.leg.mediaStats();
    const was = before[i];
    if (!now || !was) return;
    inFrames += now.received - was.received;
    inLost += now.lost - was.lost;
    inLate += now.late - was.late;
  });
  for (const call of calls) call.leg.hangup();
  await Promise.all(calls.map((c) => Promise.race([c.session.done, Bun.sleep(3000)])));
  await ask("reset");
  lateness.sort((a, b) => a - b);
  const outLoss = (100 * out.lost) / Math.max(1, out.received + out.lost);
  const outLate = (100 * out.late) / Math.max(1, out.received);
  const inLoss = (100 * inLost) / Math.max(1, inFrames + inLost);
  const inLatePct = (100 * inLate) / Math.max(1, inFrames);
  console.log(
    `   ${String(count).padStart(5)} ${String(answered).padStart(9)} ${String(out.received).padStart(13)} ${fmt(outLoss).padStart(7)} ${fmt(outLate).padStart(7)} ${String(inFrames).padStart(14)} ${fmt(inLoss).padStart(7)} ${fmt(inLatePct).padStart(7)} ${fmt(percentile(lateness, 99), 1).padStart(14)} ${fmt(cpuPercent, 0).padStart(10)}`,
  );
  if (answered === count && outLoss + outLate < 0.1 && inLoss + inLatePct < 0.1) best = count;
  await Bun.sleep(1000);
}
console.log(`   → largest tested count with under 0.1 % of frames lost or late both ways: ${best || "none"} (goal ≥ 200)`);
far.kill();
closeParley(ctx);
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
