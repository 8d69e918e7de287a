// Who talks when: the caller talking over the agent (barge-in), a caller who says nothing (silence
// reminder, then time-out), calls that reach their maximum length, a line that goes dead, and where
// an agent turn starts when its voice is slow to answer.
import { describe, expect, test } from "bun:test";
import { watchLiveCalls } from "../../../src/voice/runtime/watchdog.ts";
import { CALL_TIMEOUT, conversationFile, delivery, farEnd, turnTaking } from "../../helpers/call-driver.ts";
import { startFakeOpenAI } from "../../helpers/fake-openai.ts";
import { startFakeElevenLabs } from "../../helpers/fake-speech/elevenlabs.ts";
import { startReceiver } from "../../helpers/webhook-receiver.ts";

const { s, calls, stoppers } = conversationFile("turns");

const LONG_REPLY = "We sell kitchen blenders in three sizes. The small one is for smoothies. The large one crushes ice. Every model carries a two year warranty.";

describe.concurrent("turn-taking on the phone", () => {
  test("barge-in: the caller talks over a long reply; the turn keeps only what was heard, the model learns the same, the call goes on", async () => {
    const fake = startFakeOpenAI();
    stoppers.push(() => fake.stop());
    fake.script((body) => {
      const said = body.messages.at(-1).content as string;
      return { text: [said.includes("price") ? "The small one costs forty euros." : LONG_REPLY] };
    });
    const provider = await calls().createProvider(fake.url);
    const agent = await calls().createAgent({ name: "Talker", first_message: "Hello.", brain: { type: "llm", provider_id: provider, model: "fake-chat" } });
    const callId = await calls().place(agent.id, { lines: ["Tell me about your blenders", "What is the price", "goodbye"], barge_in: true });
    const call = await calls().ended(callId);
    const turns = call.transcript;
    expect(turns.slice(0, 2).map((t: any) => `${t.role}: ${t.text}`)).toEqual(["agent: Hello.", "caller: Tell me about your blenders"]);

    // The long reply was cut: what is kept is the start of it, word for word, and marked.
    const cut = turns[2];
    expect(cut).toMatchObject({ role: "agent", interrupted: true });
    expect(cut.text.length).toBeGreaterThan(0);
    expect(cut.text.length).toBeLessThan(LONG_REPLY.length / 2);
    expect(LONG_REPLY.startsWith(cut.text)).toBe(true);
    expect(turns[3]).toMatchObject({ role: "caller", text: "What is the price" });
    // The caller started talking while the agent was still on its reply.
    expect(turns[3].start_ms).toBeLessThan(cut.end_ms + 500);

    const timeline = await calls().timeline(callId);
    expect(timeline.filter((e) => e.type === "barge_in")[0].data).toMatchObject({ heard: cut.text });
    // The model's history holds what the caller heard, not the reply it wrote.
    const second = fake.requests.filter((r) => r.path === "/v1/chat/completions")[1].body;
    expect(second.messages.slice(-2)).toEqual([
      { role: "assistant", content: cut.text },
      { role: "user", content: "What is the price" },
    ]);
    // The conversation went on to its end.
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    expect(turns.filter((t: any) => t.role === "caller").map((t: any) => t.text)).toEqual(["Tell me about your blenders", "What is the price", "goodbye"]);
    // The far end heard less of the agent than the whole reply would have taken.
    expect(farEnd(callId).callee!.agentFramesHeard * 20).toBeLessThan(call.duration_ms);
  }, CALL_TIMEOUT);

  test("a voice slow to its first byte: the agent's turn starts where the caller first hears it, not where it was asked for", async () => {
    const eleven = startFakeElevenLabs({ apiKey: "xi-key" });
    stoppers.push(() => eleven.stop());
    eleven.configure({ ttfbMs: 700 });
    const provider = await calls().post("/v1/providers", { name: "Slow voice", kind: "elevenlabs", base_url: eleven.url, api_key: "xi-key" });
    expect(provider.status).toBe(201);
    const agent = await calls().createAgent({ name: "Slow", first_message: "Hello, this is Acme.", voice: { provider_id: provider.body.id, voice_id: "21m00Tcm4TlvDq8ikWAM", speed: 1 } });
    const callId = await calls().place(agent.id, { lines: ["goodbye"] });
    const call = await calls().ended(callId);
    const [greeting, bye, reply] = call.transcript;
    expect(call.transcript.map((t: any) => `${t.role}: ${t.text}`)).toEqual(["agent: Hello, this is Acme.", "caller: goodbye", "agent: Thank you for calling. Goodbye!"]);
    // Each agent turn starts where the caller began to hear it (the far end counts in 20 ms frames).
    const heard = farEnd(callId).callee!.agentAudioStarts;
    for (const turn of [greeting, reply]) expect(heard.some((at) => Math.abs(at - turn.start_ms) <= 40)).toBe(true);
    // The reply was asked for once the caller's turn ended; the voice took 0.7 s to its first byte.
    expect(reply.start_ms - bye.end_ms).toBeGreaterThanOrEqual(700);
  }, CALL_TIMEOUT);

  test("talking over the agent's goodbye does not undo it: the call still ends, at once", async () => {
    const agent = await calls().createAgent({ name: "Leaver", first_message: "Hi." });
    const callId = await calls().place(agent.id, { lines: ["goodbye", "Wait I have one more question"], barge_in: true });
    const call = await calls().ended(callId, 20_000);
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    const [greeting, bye, cut] = call.transcript;
    expect(greeting).toMatchObject({ role: "agent", text: "Hi." });
    expect(bye).toMatchObject({ role: "caller", text: "goodbye" });
    expect(cut).toMatchObject({ role: "agent", interrupted: true });
    expect("Thank you for calling. Goodbye!".startsWith(cut.text)).toBe(true);
    expect(call.duration_ms).toBeLessThan(cut.end_ms + 500);
    expect((await calls().timeline(callId)).filter((e) => e.type === "barge_in")).toHaveLength(1);
  }, CALL_TIMEOUT);

  test("silence: one reminder, then the call ends silence_timeout counted from the caller's last chance to speak", async () => {
    const agent = await calls().createAgent({
      name: "Patient",
      first_message: "Hello, this is Acme.",
      turn_taking: turnTaking({ silence: { reminder_after_s: 2, reminder_message: "Are you still there?", timeout_s: 5 } }),
    });
    const callId = await calls().place(agent.id, { behaviour: "silent" });
    const call = await calls().ended(callId);
    expect(call).toMatchObject({ status: "completed", end_reason: "silence_timeout" });
    const [greeting, reminder, ...rest] = call.transcript;
    expect(greeting).toMatchObject({ role: "agent", text: "Hello, this is Acme." });
    expect(reminder).toMatchObject({ role: "agent", text: "Are you still there?" });
    expect(rest).toEqual([]);
    expect(reminder.start_ms - greeting.end_ms).toBeGreaterThanOrEqual(2000);
    expect(reminder.start_ms - greeting.end_ms).toBeLessThan(2300);
    // The reminder does not restart the count: 5 s after the greeting, not after the reminder.
    expect(call.duration_ms - greeting.end_ms).toBeGreaterThanOrEqual(5000);
    expect(call.duration_ms - greeting.end_ms).toBeLessThan(5300);
  }, CALL_TIMEOUT);

  test("max duration: a call that would go on is ended max_duration at its limit of audio time", async () => {
    const hooks = startReceiver();
    stoppers.push(() => hooks.stop());
    const agent = await calls().createAgent({ name: "Brief", first_message: "Hello, this is Acme.", turn_taking: turnTaking({ max_duration_s: 10 }), webhook_url: hooks.url });
    // A caller who keeps talking: the flow keeps answering, only the limit can end it.
    const callId = await calls().place(agent.id, { lines: ["Hello", "Are you there", "Can you hear me", "Hello again", "Still here", "One more"] });
    const call = await calls().ended(callId);
    expect(call).toMatchObject({ status: "completed", end_reason: "max_duration" });
    expect(call.duration_ms).toBeGreaterThanOrEqual(10_000);
    expect(call.duration_ms).toBeLessThanOrEqual(10_040);
    expect(call.transcript.filter((t: any) => t.role === "caller").length).toBeGreaterThanOrEqual(1);
    expect(call.transcript.at(-1).end_ms).toBeLessThanOrEqual(call.duration_ms);
    const ended = await delivery(hooks, (body) => body.type === "call.ended");
    expect(ended.body.data).toMatchObject({ status: "completed", end_reason: "max_duration", duration_ms: call.duration_ms });
  }, CALL_TIMEOUT);

  test("a line that goes dead (no more audio, no hang-up) is ended by the watchdog, with its terminal events", async () => {
    const hooks = startReceiver();
    stoppers.push(() => hooks.stop());
    const agent = await calls().createAgent({ name: "Watched", first_message: "Hello, this is Acme.", webhook_url: hooks.url });
    const callId = await calls().place(agent.id, { behaviour: "silent" });
    await calls().waitFor(callId, (c) => c.transcript?.length === 1);
    // Only calls silent for longer than the limit are touched (the other tests' calls run alongside).
    expect(watchLiveCalls(s.server.ctx, { transportSilenceLimitMs: 1000 }).vanished).toBe(0);
    farEnd(callId).audioLost = true;
    await Bun.sleep(1300);
    expect(watchLiveCalls(s.server.ctx, { transportSilenceLimitMs: 1000 })).toEqual({ vanished: 1, overtime: 0, unanswered: 0 });
    const call = await calls().finalized(callId);
    expect(call).toMatchObject({ status: "failed", end_reason: "error" });
    const timeline = await calls().timeline(callId);
    expect(timeline.find((e) => e.type === "carrier")?.data.detail).toMatch(/the carrier sent no audio for 1 s: the line is gone/);
    const error = await delivery(hooks, (body) => body.type === "call.error");
    expect(error.body.data).toMatchObject({ code: "transport_lost", fatal: true });
    const ended = await delivery(hooks, (body) => body.type === "call.ended");
    expect(ended.body.data).toMatchObject({ status: "failed", end_reason: "error" });
    expect(farEnd(callId).ended).toBe("local_hangup");
  }, CALL_TIMEOUT);
});
