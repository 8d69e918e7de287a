// Turn-taking over SIP against a real peer: Debian's baresip calls an LLM agent's number on a trunk
// to it and plays the caller's WAV (Flite speech laid out in time: a sentence with a pause in it, or a
// question and then, well into the agent's long reply, "mm-hmm" or "wait, stop …"); the agent runs on
// the local fakes (model, Deepgram live hearing the caller's timeline, the built-in voice). Each test
// has its own trunk, port and baresip, so they run at once.
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { formatTranscript, turnTaking, type TimelineEvent, type Turn } from "../helpers/call-driver.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { Baresip, baresipAvailable, freePort } from "../helpers/baresip.ts";
import { startFakeOpenAI } from "../helpers/fake-openai.ts";
import { startFakeDeepgram } from "../helpers/fake-speech/deepgram.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { CallerTimeline, utterance, type PlacedPart } from "../helpers/turn-caller.ts";

/** Run before the server's own stop (hooks run in the order written): a baresip still in a call is hung up first. */
const stoppers: (() => unknown)[] = [];
afterAll(async () => {
  for (const stop of stoppers.splice(0)) await stop();
});
const s = serverWithUser("sip-turns");
const tempDir = tempDirs("sip-turns-");
const opts = () => ({ token: s.user.token });
const CALL_TIMEOUT = 60_000;
const GREETING = "Hello, how can I help?";
const LONG_REPLY = "We sell kitchen blenders in three sizes. The small one is for smoothies and soups. The large one crushes ice in seconds. Every model carries a two year warranty, and delivery is free.";
/** The caller starts talking this far into the call (the greeting is over by then). */
const FIRST_WORDS_MS = 3500;
/** Said over the agent this long after the question ended: well into its ten-second reply. */
const OVER_REPLY_MS = 3000;

let trunks = 0;

async function post(path: string, body?: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").split(/\s+/).filter(Boolean).join(" ");

/**
 * baresip calls a fresh LLM agent (the model answers `reply(what the caller said)`) over its own SIP
 * trunk, playing `timeline` as its microphone; resolves with the call once it has ended (baresip
 * hangs up `hangUpMs` into the call) and what the model was asked.
 */
async function sipCall(name: string, timeline: CallerTimeline, hangUpMs: number, reply: (said: string) => string, settings: Record<string, unknown> = {}) {
  const index = trunks++;
  const model = startFakeOpenAI();
  const deepgram = startFakeDeepgram({ apiKey: "dg-key" });
  stoppers.push(() => model.stop(), () => deepgram.stop());
  deepgram.configure({ interimEveryMs: 100, finalizeDelayMs: 50, idleTimeoutMs: 60_000 });
  model.script((body) => (body.response_format ? { text: ["{}"] } : { text: reply(body.messages.at(-1).content).match(/\S+\s*/g) ?? [], pieceDelayMs: 5 }));
  const llm = await post("/v1/providers", { name: `model ${name}`, kind: "openai-compatible", base_url: model.url });
  const stt = await post("/v1/providers", { name: `dg ${name}`, kind: "deepgram", base_url: deepgram.url, api_key: "dg-key" });
  const agent = await post("/v1/agents", {
    name,
    first_message: GREETING,
    brain: { type: "llm", provider_id: llm.id, model: "fake-chat" },
    transcriber: { provider_id: stt.id, model: "nova-3", language: "en" },
    ...settings,
  });

  const wav = join(tempDir(), `${index}.wav`);
  writeFileSync(wav, timeline.wav(hangUpMs + 5000));
  const phone = await Baresip.start({ answer: "manual", audioIn: wav });
  stoppers.push(() => phone.stop());
  const sipPort = await freePort("udp");
  const rtp = 42000 + index * 100;
  const carrier = await post("/v1/telephony/carriers", {
    name: `trunk ${name}`,
    kind: "sip",
    settings: { trunk: `127.0.0.1:${phone.sipPort}`, listen_host: "127.0.0.1", listen_port: sipPort, rtp_port_min: rtp, rtp_port_max: rtp + 99, ring_timeout_seconds: 45 },
  });
  const number = `+1415555${String(3100 + index).padStart(4, "0")}`;
  const imported = await post("/v1/phone-numbers/import", { number, carrier: carrier.id });
  await post(`/v1/phone-numbers/${imported.id}/assign`, { agent_id: agent.id });
  for (let i = 0; (await s.server.api.get(`/v1/telephony/carriers/${carrier.id}`, opts())).body.status?.state !== "listening"; i++) {
    if (i > 100) throw new Error("the trunk never listened");
    await Bun.sleep(50);
  }

  phone.command("dial", `sip:${number}@127.0.0.1:${sipPort}`);
  await phone.waitFor("CALL_ESTABLISHED");
  // The WAV plays from here: the recogniser hears the part of it being said when it is opened.
  const established = performance.now();
  deepgram.hear(() => timeline.saying(performance.now() - established));
  const callId: string = (await s.server.api.get("/v1/calls?direction=inbound", opts())).body.data.find((c: { to: string }) => c.to === number).id;
  await Bun.sleep(hangUpMs);
  phone.command("hangup");
  const call = await waitForCall(s.server.api, s.user.token, callId, undefined, 20_000);
  const events: TimelineEvent[] = (await s.server.api.get(`/v1/calls/${callId}/events`, opts())).body.data;
  const asked = model.requests.filter((r) => r.path === "/v1/chat/completions" && !r.body.response_format).map((r) => r.body.messages as { role: string; content: string }[]);
  const transcript = call.transcript as Turn[];
  return {
    transcript,
    asked,
    of: (type: string) => events.filter((e) => e.type === type),
    callerTurns: transcript.filter((t) => t.role === "caller").map((t) => t.text),
    agentTurns: transcript.filter((t) => t.role === "agent"),
    story: `${formatTranscript(transcript)}\n${events.map((e) => `  ${e.type} ${JSON.stringify(e.data)}`).join("\n")}`,
  };
}

/** A question at FIRST_WORDS_MS, then `over` OVER_REPLY_MS after it, while the agent gives its long reply. */
async function overReply(over: string): Promise<{ timeline: CallerTimeline; question: PlacedPart; said: PlacedPart }> {
  const timeline = new CallerTimeline();
  const [question] = timeline.place(await utterance("Tell me about your blenders."), FIRST_WORDS_MS);
  const [said] = timeline.place(await utterance(over), question.endMs + OVER_REPLY_MS);
  return { timeline, question, said };
}

describe.skipIf(!baresipAvailable).concurrent("turn-taking over SIP (baresip)", () => {
  test("a mid-sentence pause is not cut off: one caller turn, the agent silent in the pause, one answer after", async () => {
    const timeline = new CallerTimeline();
    const [first, second] = timeline.place(await utterance("I would like to book", 1000, "a table for Friday."), FIRST_WORDS_MS);
    const call = await sipCall("Pause", timeline, second.endMs + 3000, () => "Friday works. For how many people?");
    expect(call.callerTurns, call.story).toEqual(["I would like to book a table for Friday."]);
    expect(call.of("barge_in")).toEqual([]);
    expect(call.agentTurns.map((t) => t.text)).toEqual([GREETING, "Friday works. For how many people?"]);
    // The answer started after the caller's last word (the call's timeline is the WAV's, give or take the set-up).
    expect(call.agentTurns[1].start_ms).toBeGreaterThan(second.endMs - 200);
    expect(call.asked.at(-1)!.at(-1)!.content).toBe("I would like to book a table for Friday.");
    expect(first.endMs).toBeLessThan(second.startMs);
  }, CALL_TIMEOUT);

  test("a backchannel over the agent's long reply does not stop it: no barge-in, a backchannel note, the reply whole, no new reply", async () => {
    const { timeline, said } = await overReply("Mm-hmm.");
    const call = await sipCall("Listener", timeline, said.endMs + 11_000, (heard) => (heard.includes("blenders") ? LONG_REPLY : "Anything else?"));
    expect(call.of("barge_in"), call.story).toEqual([]);
    expect(call.of("backchannel").length).toBeGreaterThanOrEqual(1);
    expect(call.agentTurns.map((t) => [words(t.text), t.interrupted])).toEqual([
      [words(GREETING), false],
      [words(LONG_REPLY), false],
    ]);
    expect(call.asked.map((messages) => messages.at(-1)!.content)).toEqual(["Tell me about your blenders."]);
    // It was said over the agent: inside the agent's turn.
    expect(call.agentTurns[1].start_ms).toBeLessThan(said.startMs);
    expect(call.agentTurns[1].end_ms).toBeGreaterThan(said.endMs);
  }, CALL_TIMEOUT);

  test("backchannels 'interrupt' (the behaviour before): the same 'mm-hmm' stops the agent", async () => {
    const { timeline, said } = await overReply("Mm-hmm.");
    const touchy = { turn_taking: turnTaking({ interruptions: { enabled: true, min_speech_ms: 200, sensitivity: "medium", backchannels: "interrupt" } }) };
    const call = await sipCall("Touchy", timeline, said.endMs + 2000, (heard) => (heard.includes("blenders") ? LONG_REPLY : "Anything else?"), touchy);
    expect(call.of("barge_in").length, call.story).toBeGreaterThanOrEqual(1);
    expect(call.agentTurns[1].interrupted).toBe(true);
    expect(words(LONG_REPLY).startsWith(words(call.agentTurns[1].text))).toBe(true);
  }, CALL_TIMEOUT);

  test("a real interruption stops the agent: barge-in, the turn keeps what was heard, the agent answers it", async () => {
    const { timeline, said } = await overReply("Wait, stop. How much is the small one?");
    const call = await sipCall("Stoppable", timeline, said.endMs + 3000, (heard) => (heard.includes("blenders") ? LONG_REPLY : "The small one costs forty euros."));
    expect(call.of("barge_in"), call.story).toHaveLength(1);
    const [, cut, answer] = call.agentTurns;
    expect(call.agentTurns).toHaveLength(3);
    expect(cut.interrupted).toBe(true);
    expect(words(cut.text).length).toBeGreaterThan(0);
    expect(words(cut.text).length).toBeLessThan(words(LONG_REPLY).length / 2);
    expect(words(LONG_REPLY).startsWith(words(cut.text))).toBe(true);
    expect(call.of("barge_in")[0].data.heard).toBe(cut.text);
    // Stopped while the caller was talking, not at the end of its reply.
    expect(cut.end_ms).toBeLessThan(said.endMs);
    expect(answer).toMatchObject({ text: "The small one costs forty euros.", interrupted: false });
    expect(call.callerTurns).toEqual(["Tell me about your blenders.", "Wait, stop. How much is the small one?"]);
    expect(call.asked.at(-1)!.slice(-2)).toEqual([
      { role: "assistant", content: cut.text },
      { role: "user", content: "Wait, stop. How much is the small one?" },
    ]);
  }, CALL_TIMEOUT);
});
