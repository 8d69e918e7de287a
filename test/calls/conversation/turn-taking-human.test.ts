// Turn-taking as a caller feels it, on the simulated carrier: a caller on the softphone speaks Flite
// audio with real pauses and talks over the agent's long reply; an LLM agent on the local fakes
// (model, Deepgram live with interim results revealing the words as they are said, the built-in voice)
// must not cut a pause short, must never play a reply prepared at a pause the caller went on past,
// must answer a finished question with the reply it prepared, and must tell "mm-hmm" from "wait, stop".
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { CALL_TIMEOUT, conversationFile, formatTranscript, turnTaking, type TimelineEvent, type Turn } from "../../helpers/call-driver.ts";
import { startFakeOpenAI } from "../../helpers/fake-openai.ts";
import { startFakeDeepgram, type DeepgramConnection } from "../../helpers/fake-speech/deepgram.ts";
import { createKey } from "../../helpers/fixtures.ts";
import { Softphone } from "../../helpers/softphone.ts";
import { CallerTimeline, GREETING, HUMAN_TURN_TAKING, LONG_REPLY, speakInto, utterance, type PlacedPart } from "../../helpers/turn-caller.ts";

/** Softphones still open when the tests are done (one that failed mid-call) hang up before the server stops: it waits for them. */
const phones: Softphone[] = [];
afterAll(() => phones.forEach((phone) => phone.close()));
const { s, calls, stoppers } = conversationFile("turns-human");

const HUMAN = HUMAN_TURN_TAKING;

let key: string;
let numbers = 0;
beforeAll(async () => {
  key = (await createKey(s.server.api, s.user.token, "write")).secret;
});

const words = (text: string) => text.toLowerCase().replace(/[^a-z0-9' ]+/g, " ").split(/\s+/).filter(Boolean).join(" ");

/**
 * An inbound softphone call to a fresh LLM agent whose model answers `reply(what the caller said)`,
 * its recogniser the Deepgram fake hearing the caller's timeline; resolves once the greeting is over.
 */
async function humanCall(name: string, reply: (said: string) => string, settings: Record<string, unknown> = {}, greeting = GREETING) {
  const model = startFakeOpenAI();
  const deepgram = startFakeDeepgram({ apiKey: "dg-key" });
  stoppers.push(() => model.stop(), () => deepgram.stop());
  deepgram.configure({ interimEveryMs: 100, finalizeDelayMs: 50, idleTimeoutMs: 60_000 });
  model.script((body) => {
    if (body.response_format) return { text: ["{}"] }; // the summary after the call
    return { text: reply(body.messages.at(-1).content).match(/\S+\s*/g) ?? [], pieceDelayMs: 5 };
  });
  const llm = await calls().createProvider(model.url);
  const stt = await calls().post("/v1/providers", { name: `dg ${name}`, kind: "deepgram", base_url: deepgram.url, api_key: "dg-key" });
  expect(stt.status).toBe(201);
  const agent = await calls().createAgent({
    name,
    first_message: greeting,
    brain: { type: "llm", provider_id: llm, model: "fake-chat" },
    transcriber: { provider_id: stt.body.id, model: "nova-3", language: "en" },
    turn_taking: turnTaking({ ...HUMAN, ...settings }),
  });
  const number = `+141555501${40 + numbers++}`;
  const bought = await calls().post("/v1/phone-numbers/buy", { number });
  expect(bought.status).toBe(201);
  expect((await calls().post(`/v1/phone-numbers/${bought.body.id}/assign`, { agent_id: agent.id })).status).toBe(200);

  const timeline = new CallerTimeline();
  const phone = new Softphone(s.server.url, key, { to: number });
  phones.push(phone);
  deepgram.hear(() => timeline.saying(phone.sentFrames * 20));
  const callId: string = (await phone.event("call")).call_id;
  await phone.event("answered");
  await phone.agentFinished(700);
  const chats = () =>
    model.requests.filter((r) => r.path === "/v1/chat/completions" && !r.body.response_format).map((r) => r.body.messages as { role: string; content: string }[]);
  const said: PlacedPart[] = [];
  /** The caller says this (pauses as silence), and it has all been sent. */
  const say = async (...script: (string | number)[]) => {
    const parts = speakInto(phone, timeline, await utterance(...script));
    said.push(...parts);
    await phone.drained();
    return parts;
  };
  /** Waits for the agent's voice after `fromMs`, then for it to be quiet `quietMs`. */
  const answered = async (fromMs: number, quietMs = 1200, timeoutMs = 15_000) => {
    await phone.until(() => phone.loudAtMs.some((at) => at >= fromMs), timeoutMs, "the agent to answer");
    await phone.agentFinished(quietMs, 30_000);
  };
  /** Hangs up; the ended call, its timeline and the far end's hearing. */
  const end = async () => {
    phone.hangup();
    const call = await calls().ended(callId);
    const events = await calls().timeline(callId);
    if (process.env.DEBUG_TURNS) console.log(story(name, said, phone, events, deepgram.connections));
    return { call, transcript: call.transcript as Turn[], events, of: (type: string) => events.filter((e: TimelineEvent) => e.type === type) };
  };
  return { phone, callId, chats, say, answered, end };
}

/** The agent's voice at the caller's ear within [fromMs, toMs) of the caller's timeline, in ms. */
const heardBetween = (phone: Softphone, fromMs: number, toMs: number) => phone.loudAtMs.filter((at) => at >= fromMs && at < toMs).length * 20;
/** DEBUG_TURNS=1: what the caller said and heard when (its timeline), the call's events, and what the recogniser sent. */
function story(name: string, said: PlacedPart[], phone: Softphone, events: TimelineEvent[], recognitions: DeepgramConnection[]): string {
  const heard: string[] = [];
  phone.loudAtMs.forEach((at, i, all) => {
    if (i === 0 || at - all[i - 1] > 100) heard.push(`${at}`);
    if (i === all.length - 1 || all[i + 1] - at > 100) heard[heard.length - 1] += `-${at + 20}`;
  });
  return [
    `${name}: said ${said.map((p) => `"${p.text}" ${p.startMs}-${p.endMs}`).join(", ")}; heard the agent ${heard.join(" ")}`,
    ...events.map((e) => `  ${e.type} ${JSON.stringify(e.data)}`),
    ...recognitions.map((c) => `  deepgram ${c.controls.map((x) => x.type).join(",")}: ${c.sent.filter((m) => m.type === "Results").map((m) => `${m.is_final ? "final" : "interim"} ${m.channel.alternatives[0].transcript}`).join(" | ")}`),
  ].join("\n");
}

const callerTurns = (transcript: Turn[]) => transcript.filter((t) => t.role === "caller").map((t) => t.text);

/** An agent whose backchannel setting is "interrupt" (any speech over it long enough stops it, as before). */
const touchyCall = (name: string) =>
  humanCall(name, (said) => (said.includes("blenders") ? LONG_REPLY : "Anything else?"), { interruptions: { ...HUMAN.interruptions, backchannels: "interrupt" } });

/** The caller asks for the long reply, and says `over` 1.5 s into it. */
async function overReply(call: Awaited<ReturnType<typeof humanCall>>, over: string): Promise<{ question: PlacedPart; said: PlacedPart }> {
  const [question] = await call.say("Tell me about your blenders.");
  await call.phone.until(() => call.phone.loudAtMs.filter((at) => at >= question.endMs).length >= 75, 15_000, "1.5 s of the long reply");
  const [said] = await call.say(over);
  return { question, said };
}

describe.concurrent("turn-taking with a human caller (simulated carrier)", () => {
  test("a mid-sentence pause is not cut off: one caller turn with both parts, one answer after the end, nothing said in the pause", async () => {
    const call = await humanCall("Pause", () => "Friday works. For how many people?");
    const [first, second] = await call.say("I would like to book", 1000, "a table for Friday.");
    await call.answered(second.endMs);
    const { transcript, of } = await call.end();
    expect(callerTurns(transcript), formatTranscript(transcript)).toEqual(["I would like to book a table for Friday."]);
    // The agent did not start talking inside the pause (nothing to barge in on), nor did the caller hear it there.
    expect(of("barge_in")).toEqual([]);
    expect(heardBetween(call.phone, first.startMs, second.endMs)).toBe(0);
    expect(call.phone.loudAtMs.find((at) => at >= first.startMs)!).toBeGreaterThanOrEqual(second.endMs);
    expect(transcript.filter((t) => t.role === "agent").map((t) => t.text)).toEqual([GREETING, "Friday works. For how many people?"]);
    // The reply was written on the whole sentence (one prepared at the pause, if any, was dropped unplayed).
    const asked = call.chats().map((messages) => messages.at(-1)!.content);
    expect(asked.at(-1)).toBe("I would like to book a table for Friday.");
    for (const text of asked) expect("I would like to book a table for Friday.".startsWith(text)).toBe(true);
    const [latency] = of("latency").slice(-1);
    expect(latency.data.endpointing).toMatch(/^complete/);
  }, CALL_TIMEOUT);

  test("control: a fixed 300 ms wait (the behaviour before) cuts the same caller off at the pause", async () => {
    const call = await humanCall("Fixed", () => "Friday works. For how many people?", { endpointing_ms: 300, endpointing: { mode: "fixed", min_delay_ms: 300, max_delay_ms: 2000 } });
    const [, second] = await call.say("I would like to book", 1000, "a table for Friday.");
    await call.answered(second.endMs);
    const { transcript } = await call.end();
    expect(callerTurns(transcript)[0], formatTranscript(transcript)).toBe("I would like to book");
  }, CALL_TIMEOUT);

  test("a reply prepared at a pause the caller went on past is never played: preemption wasted, its words never heard", async () => {
    const call = await humanCall("Preempt", (said) => (said.includes("bill") ? "Your bill is ready." : "Pineapples are yellow."));
    // "about" leaves the sentence unfinished (the 2 s wait): the reply starts 1.4 s into the pause, the caller goes on at 1.7 s.
    const [first, second] = await call.say("My question is about", 1700, "the bill.");
    await call.answered(second.endMs);
    const { transcript, of } = await call.end();
    expect(callerTurns(transcript), formatTranscript(transcript)).toEqual(["My question is about the bill."]);
    // The model was asked at the pause, on words that never became a turn: a wasted request, counted.
    const asked = call.chats().map((messages) => messages.at(-1)!.content);
    expect(asked).toContain("My question is about");
    expect(asked.at(-1)).toBe("My question is about the bill.");
    const latency = of("latency").at(-1)!;
    expect(latency.data.preemptions_wasted).toBeGreaterThanOrEqual(1);
    // Its reply was never played: the caller heard nothing until they had finished, then only the bill.
    expect(heardBetween(call.phone, first.startMs, second.endMs)).toBe(0);
    expect(transcript.filter((t) => t.role === "agent").map((t) => t.text)).toEqual([GREETING, "Your bill is ready."]);
  }, CALL_TIMEOUT);

  test("a complete question is answered with the reply prepared at the pause (preemption hit), after the caller's end", async () => {
    const call = await humanCall("Quick", () => "We open at nine.");
    const [question] = await call.say("What time do you open tomorrow?");
    await call.answered(question.endMs);
    const { transcript, of } = await call.end();
    expect(callerTurns(transcript)).toEqual(["What time do you open tomorrow?"]);
    const latency = of("latency").at(-1)!;
    expect(latency.data).toMatchObject({ preemption: "hit", preemptions_wasted: 0 });
    expect(latency.data.endpointing).toMatch(/^complete/);
    expect(call.phone.loudAtMs.find((at) => at >= question.startMs)!).toBeGreaterThanOrEqual(question.endMs);
    expect(call.chats()).toHaveLength(1);
  }, CALL_TIMEOUT);

  // "Mm-hmm." once read as a trailing filler 'hmm' (the 2 s maximum wait), where "Okay." is a complete short answer.
  test("'mm-hmm' answering the agent's yes/no question is a complete answer, not a trailing filler", async () => {
    const call = await humanCall("Yes", () => "Done, see you on Friday.", {}, "Shall I book the table for Friday?");
    const [answer] = await call.say("Mm-hmm.");
    await call.answered(answer.endMs);
    const { transcript, of } = await call.end();
    expect(callerTurns(transcript)).toEqual(["Mm-hmm."]);
    expect(of("latency").at(-1)!.data.endpointing, formatTranscript(transcript)).toMatch(/^complete/);
  }, CALL_TIMEOUT);

  test("backchannels over a long reply do not stop the agent: no barge-in, backchannel notes, the reply whole, no new reply", async () => {
    const call = await humanCall("Listener", (said) => (said.includes("blenders") ? LONG_REPLY : "Anything else?"));
    const { said: first } = await overReply(call, "Mm-hmm.");
    // A second one once the agent has gone on for 2.5 s after the first (the first "mm-hmm" has ended by then).
    await call.phone.until(() => call.phone.loudAtMs.filter((at) => at >= first.endMs).length >= 125, 15_000, "the reply to go on");
    const [said] = await call.say("Okay.");
    await call.phone.agentFinished(2500, 30_000);
    const { transcript, of } = await call.end();
    expect(of("barge_in")).toEqual([]);
    expect(of("backchannel").length).toBeGreaterThanOrEqual(2);
    const agent = transcript.filter((t) => t.role === "agent");
    expect(agent.map((t) => [words(t.text), t.interrupted]), formatTranscript(transcript)).toEqual([
      [words(GREETING), false],
      [words(LONG_REPLY), false],
    ]);
    expect(callerTurns(transcript)).toEqual(["Tell me about your blenders.", "Mm-hmm.", "Okay."]);
    // The model was asked once, for the question: "mm-hmm" and "okay" got no reply.
    expect(call.chats().map((messages) => messages.at(-1)!.content)).toEqual(["Tell me about your blenders."]);
    // The agent went on after it (its voice heard again once the caller was done).
    expect(heardBetween(call.phone, said.endMs + 500, Infinity)).toBeGreaterThan(1000);
  }, CALL_TIMEOUT);

  test("backchannels 'interrupt' (the behaviour before): the same 'mm-hmm' stops the agent", async () => {
    const call = await touchyCall("Touchy");
    await overReply(call, "Mm-hmm.");
    await call.phone.agentFinished(1500, 30_000);
    const { transcript, of } = await call.end();
    expect(of("barge_in").length).toBeGreaterThanOrEqual(1);
    expect(of("backchannel")).toEqual([]);
    const cut = transcript.filter((t) => t.role === "agent")[1];
    expect(cut.interrupted, formatTranscript(transcript)).toBe(true);
    expect(words(LONG_REPLY).startsWith(words(cut.text))).toBe(true);
  }, CALL_TIMEOUT);

  // A stale overlap once cut the next reply at its first frame (a second barge_in with heard "").
  test("backchannels 'interrupt': after the 'mm-hmm' stopped the agent, the agent answers it as a turn, heard whole", async () => {
    const call = await touchyCall("Touchy answer");
    const { said } = await overReply(call, "Mm-hmm.");
    await call.answered(said.endMs, 1200, 6000);
    const { transcript, of } = await call.end();
    expect(of("barge_in"), formatTranscript(transcript)).toHaveLength(1);
    expect(callerTurns(transcript)).toEqual(["Tell me about your blenders.", "Mm-hmm."]);
    expect(transcript.filter((t) => t.role === "agent").at(-1)).toMatchObject({ text: "Anything else?", interrupted: false });
  }, CALL_TIMEOUT);

  test("a real interruption stops the agent: barge-in, the turn keeps only what was heard, the agent answers what the caller said", async () => {
    const call = await humanCall("Stoppable", (said) => (said.includes("blenders") ? LONG_REPLY : "The small one costs forty euros."));
    const { said } = await overReply(call, "Wait, stop. How much is the small one?");
    await call.answered(said.endMs);
    const { transcript, of } = await call.end();
    const [bargeIn] = of("barge_in");
    expect(bargeIn, formatTranscript(transcript)).toBeDefined();
    const agent = transcript.filter((t) => t.role === "agent");
    expect(agent).toHaveLength(3);
    const cut = agent[1];
    expect(cut.interrupted).toBe(true);
    expect(words(cut.text).length).toBeGreaterThan(0);
    expect(words(cut.text).length).toBeLessThan(words(LONG_REPLY).length / 2);
    expect(words(LONG_REPLY).startsWith(words(cut.text))).toBe(true);
    expect(bargeIn.data.heard).toBe(cut.text);
    // The agent's voice stopped while the caller was still talking.
    expect(heardBetween(call.phone, said.startMs + 1000, said.endMs)).toBe(0);
    // It then answered the interruption, knowing what the caller had heard.
    expect(agent.at(-1)).toMatchObject({ text: "The small one costs forty euros.", interrupted: false });
    expect(callerTurns(transcript)).toEqual(["Tell me about your blenders.", "Wait, stop. How much is the small one?"]);
    const last = call.chats().at(-1)!;
    expect(last.slice(-2)).toEqual([
      { role: "assistant", content: cut.text },
      { role: "user", content: "Wait, stop. How much is the small one?" },
    ]);
  }, CALL_TIMEOUT);
});
