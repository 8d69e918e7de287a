// Conversation benchmark: scripted callers speaking real audio (eSpeak NG) to LLM agents, on the
// simulated carrier (its softphone WebSocket) and over SIP (a trunk on loopback, RTP over UDP), with
// local fake providers on realistic timing (conversation/providers.ts: streaming STT with interim
// results every 100 ms and its final 150 ms after Finalize, a model with 350 ms to its first token
// then 40 tokens/s, TTS with 150 ms to first audio). Parley runs in its own process with the agents'
// default turn-taking. Measured at the caller's ear, per caller turn (corpus: conversation/corpus.ts):
// perceived latency, false cut-ins in mid-utterance pauses, barge-in stop time, backchannel stops.
// Usage: bun scripts/bench/conversation.ts [--turns 210] [--calls 8] [--carriers simulator,sip] [--verbose]
// (--turns N runs the corpus's first exchanges holding N caller turns, dealt out to the calls, so
// --calls 100 needs --turns 150 or more; --verbose prints every turn;
// --json FILE also writes every turn's record and Parley's view, to compare runs; --endpointing MS
// gives the agents a fixed endpointing_ms, e.g. to see the cut-ins a faster reply makes; --before runs
// the turn-taking Parley had before issue 37 (a fixed 600 ms, no preemption, any 250 ms of speech
// stops the agent); --turn-taking JSON is merged into the agents' turn_taking; --stt openai has them
// transcribe with an OpenAI-compatible batch server instead of Deepgram live.)
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { withDefaults } from "../../src/voice/agent-config.ts";
import { freePort } from "../../test/helpers/baresip.ts";
import { ScriptedCaller, type RenderedTurn } from "./conversation/caller.ts";
import { firstTurns, schedule, type CallerTurn, type Exchange } from "./conversation/corpus.ts";
import { SipCaller, softphoneLine, type CallerLine } from "./conversation/lines.ts";
import { framePacer } from "./conversation/pacing.ts";
import { startProviders, TIMING } from "./conversation/providers.ts";
import { printReport, type CarrierResult, type ParleyView } from "./conversation/report.ts";
import { CALLER_VOICES, render, type CallerVoice } from "./conversation/voice.ts";
import { apiAt, cpuMsOf, spawnParley } from "./spawn-parley.ts";
import { percentile } from "./stats.ts";

const { values } = parseArgs({ args: process.argv.slice(2), options: { stt: { type: "string", default: "deepgram" }, endpointing: { type: "string" }, before: { type: "boolean", default: false }, "turn-taking": { type: "string" }, json: { type: "string" }, verbose: { type: "boolean", default: false }, turns: { type: "string", default: "210" }, calls: { type: "string", default: "8" }, carriers: { type: "string", default: "simulator,sip" } } });
const CALLS = Number(values.calls);
const CARRIERS = values.carriers.split(",") as ("simulator" | "sip")[];
const exchanges = firstTurns(schedule(), Number(values.turns));

// Every slot's turns, rendered before any call starts (eSpeak NG must not compete with the calls).
const renderTurn = (turn: CallerTurn, voice: CallerVoice): RenderedTurn => ({ turn, parts: turn.parts.map((part) => ({ ...part, pcm: render(part.text, voice) })) });
const slots = Array.from({ length: Math.min(CALLS, exchanges.length) }, (_, slot) => {
  const voice = CALLER_VOICES[slot % CALLER_VOICES.length];
  return exchanges
    .filter((_, i) => i % CALLS === slot)
    .map((source: Exchange) => ({ source, turn: renderTurn(source.turn, voice), interjection: source.interjection && renderTurn(source.interjection, voice) }));
});

/** An agent's turn_taking when it gives none (src/voice/agent-config.ts), with what the options change. */
const DEFAULT_TURN_TAKING = withDefaults({ name: "defaults" }, "en").turn_taking;
const BEFORE = { endpointing_ms: 600, endpointing: { mode: "fixed" }, preemptive_generation: false, interruptions: { enabled: true, min_speech_ms: 250, backchannels: "interrupt" } };
const TURN_TAKING = merge(
  merge(DEFAULT_TURN_TAKING, values.before ? BEFORE : {}),
  {
    ...(values.endpointing ? { endpointing_ms: Number(values.endpointing), endpointing: { mode: "fixed" } } : {}),
    ...(values["turn-taking"] ? JSON.parse(values["turn-taking"]) : {}),
  },
);

function merge(base: Record<string, any>, over: Record<string, any>): Record<string, any> {
  const out = { ...base };
  for (const [key, value] of Object.entries(over)) out[key] = value && typeof value === "object" && !Array.isArray(value) ? merge(base[key] ?? {}, value) : value;
  return out;
}
const callers = new Map<string, ScriptedCaller>();
const providers = startProviders((name) => (name ? callers.get(name) : undefined));
const sipCaller = await SipCaller.start();
const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-conversation-"));
const { process: server, url: base } = await spawnParley(dataDir, { PARLEY_RATE_LIMIT_PER_MINUTE: "10000000", PARLEY_LOG_LEVEL: "warn", PARLEY_ALLOW_PRIVATE_URLS: "true" });

const api = apiAt(base);

const token = (await api("POST", "/v1/auth/register", null, { email: "bench@example.com", password: "bench password 1" })).access_token;
const key = (await api("POST", "/v1/api-keys", token, { name: "bench", scope: "admin" })).key;
const llm = (await api("POST", "/v1/providers", key, { name: "model", kind: "openai-compatible", base_url: providers.model.url })).id;
const BATCH_STT = values.stt === "openai";
if (!BATCH_STT && values.stt !== "deepgram") throw new Error(`--stt is deepgram or openai, not ${values.stt}`);
const stt = (await api("POST", "/v1/providers", key, BATCH_STT ? { name: "stt", kind: "openai-compatible", base_url: providers.transcription.url } : { name: "stt", kind: "deepgram", base_url: providers.deepgram.url, api_key: "bench" })).id;
const tts = (await api("POST", "/v1/providers", key, { name: "tts", kind: "elevenlabs", base_url: providers.elevenlabs.url, api_key: "bench" })).id;
const sipPort = await freePort("udp");
const trunk = (await api("POST", "/v1/telephony/carriers", key, {
  name: "bench trunk",
  kind: "sip",
  settings: { trunk: sipCaller.address, listen_host: "127.0.0.1", listen_port: sipPort, rtp_port_min: 42000, rtp_port_max: 42998, keepalive_seconds: 0 },
})).id;
for (let tries = 0; (await api("GET", `/v1/telephony/carriers/${trunk}`, key)).status.state !== "listening"; tries++) {
  if (tries > 100) throw new Error("the SIP trunk never listened");
  await Bun.sleep(50);
}

/** Each slot: its own agent (model and transcriber named after it), a simulated number and a SIP DID. */
const lines = await Promise.all(
  slots.map(async (_, slot) => {
    const name = `slot-${slot}`;
    const agent = (await api("POST", "/v1/agents", key, {
      name,
      first_message: "Hello, this is Acme. How can I help?",
      brain: { type: "llm", provider_id: llm, model: name },
      voice: { provider_id: tts, voice_id: "21m00Tcm4TlvDq8ikWAM" },
      transcriber: { provider_id: stt, model: name, language: "en" },
      // A fixed wait: the delays around it are left out, so they widen to take it in.
      turn_taking: TURN_TAKING,
    })).id;
    const simulated = await api("POST", "/v1/phone-numbers/buy", key, { area_code: "415" });
    const did = await api("POST", "/v1/phone-numbers/import", key, { number: `+1415555${String(2000 + slot)}`, carrier: trunk });
    for (const number of [simulated, did]) await api("POST", `/v1/phone-numbers/${number.id}/assign`, key, { agent_id: agent });
    return { name, simulated: simulated.number as string, did: did.number as string };
  }),
);

const dial: Record<(typeof CARRIERS)[number], (slot: number) => Promise<CallerLine>> = {
  simulator: (slot) => softphoneLine(base, key, lines[slot].simulated),
  sip: (slot) => sipCaller.call(sipPort, lines[slot].did),
};

/** What Parley's own timeline says about the carrier's calls: each answered turn's latency event (endpointing + end to end), barge-ins, caller turns heard. */
async function parleyView(numbers: string[], modelRequests: number): Promise<ParleyView> {
  const view: ParleyView = { latencyMs: [], latencyEvents: [], platformMs: [], preemption: { hit: 0, wasted: 0, turns: 0 }, bargeIns: 0, callerTurns: 0, modelRequests };
  for (const number of numbers) {
    for (const call of (await api("GET", `/v1/calls?number=${encodeURIComponent(number)}&limit=100`, key)).data) {
      const events = (await api("GET", `/v1/calls/${call.id}/events`, key)).data as { type: string; data: Record<string, any> }[];
      let lastCaller = "";
      for (const event of events) {
        if (event.type === "latency" && event.data.perceived_ms !== null) view.latencyMs.push(event.data.perceived_ms);
        if (event.type === "latency") {
          view.latencyEvents.push({ ...event.data, after: lastCaller });
          view.preemption.turns++;
          if (event.data.preemption === "hit") view.preemption.hit++;
          view.preemption.wasted += event.data.preemptions_wasted ?? 0;
        }
        if (event.type === "latency" && event.data.platform_ms !== null) view.platformMs.push(event.data.platform_ms);
        if (event.type === "barge_in") view.bargeIns++;
        if (event.type === "turn" && event.data.role === "caller") {
          view.callerTurns++;
          lastCaller = event.data.text;
        }
      }
    }
  }
  return view;
}

const turnCount = exchanges.reduce((n, e) => n + (e.interjection ? 2 : 1), 0);
console.log(`Conversation benchmark: ${turnCount} caller turns (${exchanges.length} exchanges) per carrier, ${slots.length} calls at once, callers voiced by espeak-ng`);
// A call holds at least one exchange: 100 calls at once need --turns 150 or more.
if (slots.length < CALLS) console.log(`(--calls ${CALLS} asks for more calls than there are exchanges: raise --turns)`);
const sttTiming = BATCH_STT ? `STT batch (OpenAI-compatible), the text ${TIMING.batchSttMs} ms after each upload` : `STT interim every ${TIMING.sttInterimEveryMs} ms, final ${TIMING.sttFinalMs} ms after Finalize`;
console.log(
  `providers: ${sttTiming}; model ${TIMING.llmFirstTokenMs} ms to first token, ${TIMING.llmTokensPerSecond} tokens/s; TTS ${TIMING.ttsFirstAudioMs} ms to first audio`,
);
const { endpointing_ms, endpointing, preemptive_generation, interruptions } = TURN_TAKING;
console.log(`agents' turn_taking${values.before ? " (--before: as before issue 37)" : ""}: ${JSON.stringify({ endpointing_ms, endpointing, preemptive_generation, interruptions })}\n`);
const results: CarrierResult[] = [];
for (const carrier of CARRIERS) {
  const started = performance.now();
  framePacer.lateMs.length = 0;
  const cpuBefore = [cpuMsOf(process.pid), cpuMsOf(server.pid)];
  const chats = () => providers.model.requests.filter((r) => r.path === "/v1/chat/completions" && !r.body?.response_format).length;
  const chatsBefore = chats();
  const records = await Promise.all(
    slots.map(async (turns, slot) => {
      const caller = new ScriptedCaller(await dial[carrier](slot));
      callers.set(lines[slot].name, caller);
      await caller.converse(turns);
      return caller.records;
    }),
  );
  await Bun.sleep(1000);
  const view = await parleyView(
    lines.map((line) => (carrier === "sip" ? line.did : line.simulated)),
    chats() - chatsBefore,
  );
  results.push({ carrier, records: records.flat(), view });
  const late = framePacer.lateMs;
  const wallMs = performance.now() - started;
  const [benchCpu, parleyCpu] = [cpuMsOf(process.pid) - cpuBefore[0], cpuMsOf(server.pid) - cpuBefore[1]].map((ms) => `${Math.round((100 * ms) / wallMs)} %`);
  // Late ticks mean the bench process (callers and fake providers) fell behind: its figures then include that.
  console.log(`   ${carrier}: ${Math.round(wallMs / 1000)} s; CPU (of one core) bench ${benchCpu}, Parley ${parleyCpu}; the callers' 20 ms clock ran late by p50 ${percentile(late, 50).toFixed(1)} / p99 ${percentile(late, 99).toFixed(1)} / max ${late.reduce((a, b) => Math.max(a, b), 0).toFixed(0)} ms`);
  if (values.verbose) {
    for (const record of records.flat()) console.log(`      ${JSON.stringify(record)}`);
    const [first] = (await api("GET", `/v1/calls?number=${encodeURIComponent(carrier === "sip" ? lines[0].did : lines[0].simulated)}&limit=1`, key)).data;
    const transcript = await fetch(`${base}/v1/calls/${first.id}/transcript?format=text`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.text());
    console.log(`      the first call's transcript, as Parley wrote it:\n${transcript.replace(/^/gm, "        ")}`);
  }
}
console.log("");
printReport(results);
if (values.json) writeFileSync(values.json, JSON.stringify({ turns: turnCount, calls: slots.length, timing: TIMING, results }, null, 1));
sipCaller.close();
providers.stop();
server.kill();
await server.exited;
rmSync(dataDir, { recursive: true, force: true });
process.exit(0);
