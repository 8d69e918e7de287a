// Turn-taking on the speech paths the human-caller file does not take (issue 37, item 6), on the
// simulated carrier with a softphone caller speaking Flite audio: an LLM agent whose transcriber is a
// batch recogniser (the OpenAI-compatible /audio/transcriptions fake, which has no partials: the
// runtime transcribes speculatively at a pause and reuses that at the end), and a flow agent (no model)
// on the Deepgram fake. Both must wait through a mid-sentence pause and let "mm-hmm" over a long reply
// pass; the flow must still stop for a real interruption and is never preempted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CALL_TIMEOUT, conversationFile, formatTranscript, turnTaking, type TimelineEvent, type Turn } from "../../helpers/call-driver.ts";
import { startFakeOpenAI } from "../../helpers/fake-openai.ts";
import { startFakeDeepgram } from "../../helpers/fake-speech/deepgram.ts";
import { startFakeOpenAiAudio } from "../../helpers/fake-speech/openai-audio.ts";
import { createKey } from "../../helpers/fixtures.ts";
import { Softphone } from "../../helpers/softphone.ts";
import { CallerTimeline, GREETING, HUMAN_TURN_TAKING, LONG_REPLY, speakInto, utterance, type PlacedPart } from "../../helpers/turn-caller.ts";

/** Softphones still open when the tests are done (one that failed mid-call) hang up before the server stops: it waits for them. */
const phones: Softphone[] = [];
afterAll(() => phones.forEach((phone) => phone.close()));
const { s, calls, stoppers } = conversationFile("turns-paths");

/** The batch fake answers this long after an upload (a Whisper server on the same network, for a few seconds of speech). */
const BATCH_STT_MS = 50;

/** A flow that answers "blenders" with the long reply; after it, "small" gets the price. */
const SHOP_FLOW = {
  start: "menu",
  nodes: {
    menu: { type: "route", routes: [{ keywords: ["blenders"], next: "blenders" }], default: "menu" },
    blenders: { type: "say", text: LONG_REPLY, next: "more" },
    more: { type: "route", text: "Anything else?", routes: [{ keywords: ["small"], next: "small" }], default: "more" },
    small: { type: "say", text: "The small one costs forty euros.", next: "more" },
  },
};
/** A flow whose question needs the words the caller says after a pause ("I would like the … large one"). */
const SIZE_FLOW = {
  start: "size",
  nodes: {
    size: { type: "ask", text: "Which size would you like, small or large?", slot: { name: "size", type: "enum", options: ["small", "large"] }, reprompt: "Sorry, small or large?", next: "noted" },
    noted: { type: "say", text: "The {{size}} one, noted.", next: "more" },
    more: { type: "route", text: "Anything else?", routes: [{ keywords: ["small"], next: "noted" }], default: "more" },
  },
};

let key: string;
let numbers = 0;
beforeAll(async () => {
  key = (await createKey(s.server.api, s.user.token, "write")).secret;
});

const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").split(/\s+/).filter(Boolean).join(" ");
const callerTurns = (transcript: Turn[]) => transcript.filter((t) => t.role === "caller").map((t) => t.text);
const agentTurns = (transcript: Turn[]) => transcript.filter((t) => t.role === "agent");

type Brain = { type: "llm"; reply: (said: string) => string } | { type: "flow"; flow: Record<string, unknown> };

/**
 * An inbound softphone call to a fresh agent: an LLM one on the fake model answering `reply(what the
 * caller said)` with a batch recogniser (the transcription fake writes the words said in each upload's
 * span of the caller's timeline), or a flow one on the Deepgram fake hearing that timeline. Resolves
 * once the greeting is over.
 */
async function pathCall(name: string, brain: Brain, settings: Record<string, unknown> = {}) {
  const timeline = new CallerTimeline();
  let phone: Softphone | null = null;
  const nowMs = () => (phone?.sentFrames ?? 0) * 20;
  let transcriber: Record<string, unknown>;
  let agentBrain: Record<string, unknown>;
  const model = startFakeOpenAI();
  const uploads = startFakeOpenAiAudio();
  stoppers.push(() => model.stop(), () => uploads.stop());
  if (brain.type === "llm") {
    model.script((body) => {
      if (body.response_format) return { text: ["{}"] }; // the summary after the call
      return { text: brain.reply(body.messages.at(-1).content).match(/\S+\s*/g) ?? [], pieceDelayMs: 5 };
    });
    // Answered BATCH_STT_MS after the upload arrived: its audio ended then, on the caller's timeline.
    uploads.configure({ ttfbMs: BATCH_STT_MS, transcript: (upload) => timeline.heardIn(nowMs() - BATCH_STT_MS - upload.durationMs, nowMs() - BATCH_STT_MS) });
    const stt = await calls().post("/v1/providers", { name: `batch ${name}`, kind: "openai-compatible", base_url: uploads.url });
    expect(stt.status).toBe(201);
    transcriber = { provider_id: stt.body.id, model: "whisper-1", language: "en" };
    agentBrain = { type: "llm", provider_id: await calls().createProvider(model.url), model: "fake-chat" };
  } else {
    const deepgram = startFakeDeepgram({ apiKey: "dg-key" });
    stoppers.push(() => deepgram.stop());
    deepgram.configure({ interimEveryMs: 100, finalizeDelayMs: 50, idleTimeoutMs: 60_000 });
    deepgram.hear(() => timeline.saying(nowMs()));
    const stt = await calls().post("/v1/providers", { name: `dg ${name}`, kind: "deepgram", base_url: deepgram.url, api_key: "dg-key" });
    expect(stt.status).toBe(201);
    transcriber = { provider_id: stt.body.id, model: "nova-3", language: "en" };
    agentBrain = { type: "flow", flow: brain.flow };
  }
  const agent = await calls().createAgent({ name, first_message: GREETING, brain: agentBrain, transcriber, turn_taking: turnTaking({ ...HUMAN_TURN_TAKING, ...settings }) });
  const number = `+141555501${50 + numbers++}`;
  const bought = await calls().post("/v1/phone-numbers/buy", { number });
  expect(bought.status).toBe(201);
  expect((await calls().post(`/v1/phone-numbers/${bought.body.id}/assign`, { agent_id: agent.id })).status).toBe(200);

  const caller = (phone = new Softphone(s.server.url, key, { to: number }));
  phones.push(caller);
  const callId: string = (await caller.event("call")).call_id;
  await caller.event("answered");
  await caller.agentFinished(700);
  const chats = () =>
    model.requests.filter((r) => r.path === "/v1/chat/completions" && !r.body.response_format).map((r) => r.body.messages.at(-1).content as string);
  const transcriptions = () => uploads.requests.filter((r) => r.path === "/v1/audio/transcriptions");
  /** The caller says this (pauses as silence), and it has all been sent. */
  const say = async (...script: (string | number)[]) => {
    const parts = speakInto(caller, timeline, await utterance(...script));
    await caller.drained();
    return parts;
  };
  /** Waits for the agent's voice after `fromMs`, then for it to be quiet `quietMs`. */
  const answered = async (fromMs: number, quietMs = 1200) => {
    await caller.until(() => caller.loudAtMs.some((at) => at >= fromMs), 15_000, "the agent to answer");
    await caller.agentFinished(quietMs, 30_000);
  };
  /** Asks for the long reply, and says `over` 1.5 s into it. */
  const overReply = async (over: string) => {
    const [question] = await say("Tell me about your blenders.");
    await caller.until(() => caller.loudAtMs.filter((at) => at >= question.endMs).length >= 75, 15_000, "1.5 s of the long reply");
    const [said] = await say(over);
    return said;
  };
  /** Hangs up; the ended call, its timeline and its transcript. */
  const end = async () => {
    caller.hangup();
    const call = await calls().ended(callId);
    const events = await calls().timeline(callId);
    if (process.env.DEBUG_TURNS) console.log(`${name}:`, events.map((e) => `\n  ${e.type} ${JSON.stringify(e.data)}`).join(""));
    return { call, transcript: call.transcript as Turn[], of: (type: string) => events.filter((e: TimelineEvent) => e.type === type) };
  };
  return { phone: caller, chats, transcriptions, say, answered, overReply, end };
}

/** The agent's voice at the caller's ear within [fromMs, toMs) of the caller's timeline, in ms. */
const heardBetween = (phone: Softphone, fromMs: number, toMs: number) => phone.loudAtMs.filter((at) => at >= fromMs && at < toMs).length * 20;

/** Nothing of the agent's heard from the caller's first word to their last: the pause was not cut into. */
function notCutOff(phone: Softphone, first: PlacedPart, last: PlacedPart) {
  expect(heardBetween(phone, first.startMs, last.endMs)).toBe(0);
  expect(phone.loudAtMs.find((at) => at >= first.startMs)!).toBeGreaterThanOrEqual(last.endMs);
}

/**
 * The caller says `backchannel` 1.5 s into the long reply: the agent goes on (it may hold its audio
 * while the words are recognised: resumed: true), its turn whole (`said`, the long reply and what
 * follows it), and does not answer it. Returns the backchannel note.
 */
async function backchannelOverReply(call: Awaited<ReturnType<typeof pathCall>>, backchannel: string, said: string) {
  const over = await call.overReply(backchannel);
  await call.phone.agentFinished(2500, 30_000);
  const { transcript, of } = await call.end();
  expect(of("barge_in"), formatTranscript(transcript)).toEqual([]);
  expect(of("backchannel")).toHaveLength(1);
  expect(agentTurns(transcript).map((t) => [words(t.text), t.interrupted])).toEqual([
    [words(GREETING), false],
    [words(said), false],
  ]);
  expect(callerTurns(transcript)).toEqual(["Tell me about your blenders.", backchannel]);
  // Its voice went on after the caller's backchannel.
  expect(heardBetween(call.phone, over.endMs + 1500, Infinity)).toBeGreaterThan(1000);
  return { note: of("backchannel")[0].data, of };
}

/**
 * The caller cuts into the long reply 1.5 s in with "wait, stop" and a question: the agent's voice
 * stops while they talk, its turn keeps only what was heard (barge_in says the same), and `answer` follows.
 */
async function interruptedReply(call: Awaited<ReturnType<typeof pathCall>>, answer: string) {
  const said = await call.overReply("Wait, stop. How much is the small one?");
  await call.answered(said.endMs);
  const ended = await call.end();
  const { transcript, of } = ended;
  const [bargeIn] = of("barge_in");
  expect(bargeIn, formatTranscript(transcript)).toBeDefined();
  const agent = agentTurns(transcript);
  expect(agent).toHaveLength(3);
  const cut = agent[1];
  expect(cut.interrupted).toBe(true);
  expect(words(cut.text).length).toBeGreaterThan(0);
  expect(words(LONG_REPLY).startsWith(words(cut.text))).toBe(true);
  expect(words(cut.text).length).toBeLessThan(words(LONG_REPLY).length / 2);
  expect(bargeIn.data.heard).toBe(cut.text);
  expect(heardBetween(call.phone, said.startMs + 1000, said.endMs)).toBe(0);
  expect(callerTurns(transcript)).toEqual(["Tell me about your blenders.", "Wait, stop. How much is the small one?"]);
  expect(agent[2]).toMatchObject({ text: answer, interrupted: false });
  return ended;
}

describe.concurrent("turn-taking on a batch recogniser (OpenAI-compatible transcription)", () => {
  const blenders = (said: string) => (said.includes("blenders") ? LONG_REPLY : "Anything else?");

  test("a mid-sentence pause is not cut off: one caller turn with both parts, one answer after the end", async () => {
    const call = await pathCall("Batch pause", { type: "llm", reply: () => "Friday works. For how many people?" });
    const [first, second] = await call.say("I would like to book", 1000, "a table for Friday.");
    await call.answered(second.endMs);
    const { transcript, of } = await call.end();
    expect(callerTurns(transcript), formatTranscript(transcript)).toEqual(["I would like to book a table for Friday."]);
    expect(of("barge_in")).toEqual([]);
    notCutOff(call.phone, first, second);
    expect(agentTurns(transcript).map((t) => t.text)).toEqual([GREETING, "Friday works. For how many people?"]);
    // The answer was written on the whole sentence (one prepared at the pause on its first half was dropped unplayed).
    expect(call.chats().at(-1)).toBe("I would like to book a table for Friday.");
    expect(of("latency").at(-1)!.data.endpointing).toMatch(/^complete/);
  }, CALL_TIMEOUT);

  test("a complete question is answered with the reply started at the pause (preemption hit) on the one speculative upload", async () => {
    const call = await pathCall("Batch quick", { type: "llm", reply: () => "We open at nine." });
    const [question] = await call.say("What time do you open tomorrow?");
    await call.answered(question.endMs);
    const { transcript, of } = await call.end();
    expect(callerTurns(transcript)).toEqual(["What time do you open tomorrow?"]);
    expect(of("latency").at(-1)!.data, formatTranscript(transcript)).toMatchObject({ preemption: "hit", preemptions_wasted: 0 });
    expect(call.chats()).toEqual(["What time do you open tomorrow?"]);
    // The audio went up once, at the pause; the end of the utterance reused that transcript (no second upload).
    expect(call.transcriptions()).toHaveLength(1);
    expect(call.phone.loudAtMs.find((at) => at >= question.startMs)!).toBeGreaterThanOrEqual(question.endMs);
  }, CALL_TIMEOUT);

  test("'okay' over a long reply does not stop the agent: no barge-in, a backchannel note, the reply whole, no new reply", async () => {
    // A batch recogniser has no words while the caller speaks: the agent holds its audio, then goes on once the upload says "okay".
    const call = await pathCall("Batch listener", { type: "llm", reply: blenders });
    expect((await backchannelOverReply(call, "Okay.", LONG_REPLY)).note).toMatchObject({ reason: "backchannel 'okay'" });
    // The model was asked once, for the question: "okay" got no reply.
    expect(call.chats()).toEqual(["Tell me about your blenders."]);
  }, CALL_TIMEOUT);

  // Flite's "Mm-hmm." is 1.14 s of voice and a batch recogniser has no words until the upload at the pause
  // after it: speech with no words is not judged by its length there (it once was, and stopped the agent).
  test("'mm-hmm' (1.1 s) over a long reply does not stop the agent either", async () => {
    const call = await pathCall("Batch long listener", { type: "llm", reply: blenders });
    await backchannelOverReply(call, "Mm-hmm.", LONG_REPLY);
    expect(call.chats()).toEqual(["Tell me about your blenders."]);
  }, CALL_TIMEOUT);

  test("a real interruption stops the agent: held while its words are uploaded, then barge-in, the turn keeps only what was heard", async () => {
    await interruptedReply(await pathCall("Batch stoppable", { type: "llm", reply: (said) => (said.includes("blenders") ? LONG_REPLY : "The small one costs forty euros.") }), "The small one costs forty euros.");
  }, CALL_TIMEOUT);
});

describe.concurrent("turn-taking for a flow agent (no model, Deepgram live)", () => {
  test("a mid-sentence pause is not cut off: the ask step gets the whole sentence, no reprompt, no preemption", async () => {
    const call = await pathCall("Flow pause", { type: "flow", flow: SIZE_FLOW });
    const [first, second] = await call.say("I would like the", 1000, "large one, please.");
    await call.answered(second.endMs);
    const { transcript, of } = await call.end();
    expect(callerTurns(transcript), formatTranscript(transcript)).toEqual(["I would like the large one, please."]);
    notCutOff(call.phone, first, second);
    expect(agentTurns(transcript).map((t) => t.text)).toEqual([`${GREETING} Which size would you like, small or large?`, "The large one, noted. Anything else?"]);
    const latency = of("latency").at(-1)!.data;
    expect(latency.endpointing).toMatch(/^complete/);
    // A flow has no model to start early: its turn is answered once confirmed.
    expect(of("latency").map((e) => e.data.preemption)).toEqual(["none"]);
    expect(latency.preemptions_wasted).toBe(0);
  }, CALL_TIMEOUT);

  test("'mm-hmm' over a long say does not stop the flow: no barge-in, a backchannel note, the say whole", async () => {
    const { note } = await backchannelOverReply(await pathCall("Flow listener", { type: "flow", flow: SHOP_FLOW }), "Mm-hmm.", `${LONG_REPLY} Anything else?`);
    // Deepgram's interims have the words while the caller still speaks.
    expect(note).toMatchObject({ reason: "backchannel 'mm-hmm'" });
  }, CALL_TIMEOUT);

  test("a real interruption stops the flow: barge-in, the turn keeps only what was heard, the flow answers what was said", async () => {
    const { of } = await interruptedReply(await pathCall("Flow stoppable", { type: "flow", flow: SHOP_FLOW }), "The small one costs forty euros. Anything else?");
    expect(of("latency").map((e) => e.data.preemption)).toEqual(["none", "none"]);
  }, CALL_TIMEOUT);
});
