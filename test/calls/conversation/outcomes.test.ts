// How calls end besides a conversation: answering machines, busy lines and unanswered phones, the
// callee hanging up, and the API's live controls (say, transfer, hang up) on a call in progress.
import { describe, expect, test } from "bun:test";
import { simulatedCalls } from "../../../src/telephony/simulated/carrier.ts";
import { CALL_TIMEOUT, conversationFile, delivery, farEnd } from "../../helpers/call-driver.ts";
import { startReceiver } from "../../helpers/webhook-receiver.ts";
import { adminKey, createEndpoint } from "../../helpers/webhooks.ts";

const { s, calls, stoppers } = conversationFile("outcomes");

const MESSAGE = "Hi, this is Acme calling about your order. Please call us back.";

describe.concurrent("how calls end", () => {
  test("voicemail with leave_message: waits for the beep, leaves the message, ends voicemail", async () => {
    const agent = await calls().createAgent({ name: "Messenger", first_message: "Hello, this is Acme.", voicemail: { action: "leave_message", message: MESSAGE } });
    const callId = await calls().place(agent.id, { behaviour: "voicemail", greeting: "Hi, this is Sam. Please leave a message after the tone." });
    const call = await calls().ended(callId);
    expect(call).toMatchObject({ status: "completed", end_reason: "voicemail" });
    expect(call.transcript).toHaveLength(1);
    expect(call.transcript[0]).toMatchObject({ role: "agent", text: MESSAGE, interrupted: false });
    const timeline = await calls().timeline(callId);
    expect(timeline.find((e) => e.type === "amd")?.data.verdict).toBe("machine");
    expect(timeline.find((e) => e.type === "voicemail")?.data).toEqual({ trigger: "beep" });
    // Spoken once the beep is over (it follows the greeting after half a second and lasts half a second).
    const [greeting] = farEnd(callId).callee!.spoken;
    expect(greeting.text).toBe("Hi, this is Sam. Please leave a message after the tone.");
    expect(call.transcript[0].start_ms).toBeGreaterThanOrEqual(greeting.endMs + 900);
    expect(farEnd(callId).callee!.agentFramesHeard * 20).toBeGreaterThanOrEqual(call.transcript[0].end_ms - call.transcript[0].start_ms - 40);
  }, CALL_TIMEOUT);

  test("voicemail with hang_up (the default), on the number that always reaches a machine: ends voicemail without a word", async () => {
    const agent = await calls().createAgent({ name: "Quiet", first_message: "Hello, this is Acme." });
    const callId = await calls().place(agent.id, {}, { to: "+12125550103" });
    const call = await calls().ended(callId);
    expect(call).toMatchObject({ status: "completed", end_reason: "voicemail", transcript: null });
    expect(farEnd(callId).callee!.agentFramesHeard).toBe(0);
    expect(farEnd(callId).ended).toBe("local_hangup");
  }, CALL_TIMEOUT);

  test("a callee whose line sends no audio at all is a silent pickup: the agent greets after the screening's wait", async () => {
    const agent = await calls().createAgent({ name: "Patient", first_message: "Hello, this is Acme." });
    const callId = await calls().place(agent.id, { behaviour: "silent", ring_ms: 1000 });
    // Before it answers, the simulated line is told to send nothing (a phone with no microphone, or silence suppression).
    for (let waited = 0; !simulatedCalls.has(callId); waited += 10) {
      if (waited > 5000) throw new Error("the call was not dialled");
      await Bun.sleep(10);
    }
    farEnd(callId).audioLost = true;
    const call = await calls().waitFor(callId, (c) => c.transcript?.length === 1, 10_000);
    expect(call.transcript[0]).toMatchObject({ role: "agent", text: "Hello, this is Acme." });
    const amd = (await calls().timeline(callId)).find((event) => event.type === "amd");
    expect(amd?.data).toMatchObject({ verdict: "human", reason: "silent pickup" });
    await s.server.api.post(`/v1/calls/${callId}/hangup`, undefined, { token: s.user.token });
  }, CALL_TIMEOUT);

  test("busy and unanswered numbers end busy / no_answer, with call.ended and call.failed", async () => {
    const hooks = startReceiver();
    const outcomes = startReceiver();
    stoppers.push(() => hooks.stop(), () => outcomes.stop());
    await createEndpoint(s.server, await adminKey(s.server, s.user.token), outcomes.url, ["call.failed"]);
    const agent = await calls().createAgent({ name: "Dialer", first_message: "Hello, this is Acme.", webhook_url: hooks.url });
    const busy = await calls().place(agent.id, {}, { to: "+12125550101" });
    const unanswered = await calls().place(agent.id, { ring_ms: 300 }, { to: "+12125550102" });
    for (const [callId, status] of [[busy, "busy"], [unanswered, "no_answer"]]) {
      const call = await calls().finalized(callId);
      expect(call).toMatchObject({ status, end_reason: status, started_at: null, duration_ms: 0, transcript: null, recording_url: null });
      const ended = await delivery(hooks, (body) => body.type === "call.ended" && body.call_id === callId);
      expect(ended.body.data).toMatchObject({ status, end_reason: status, duration_ms: 0, recording_url: null });
      const failed = await delivery(outcomes, (body) => body.event === "call.failed" && body.data.call_id === callId);
      expect(failed.body.data).toMatchObject({ status, end_reason: status, started_at: null, duration_seconds: 0, transcript: "", transcript_turns: [] });
    }
    // Never answered: no call.started for either.
    expect(hooks.requests.map((r) => JSON.parse(r.body).type)).not.toContain("call.started");
  }, CALL_TIMEOUT);

  test("the callee hangs up mid-call: customer_hangup", async () => {
    const agent = await calls().createAgent({ name: "Hung up on", first_message: "Hello, this is Acme. I am calling about your recent order with us." });
    const callId = await calls().place(agent.id, { behaviour: "hang_up", hang_up_after_ms: 4000 });
    const call = await calls().ended(callId);
    expect(call).toMatchObject({ status: "completed", end_reason: "customer_hangup" });
    expect(call.duration_ms).toBeGreaterThanOrEqual(3900);
    expect(call.duration_ms).toBeLessThan(4200);
    // Cut off mid-greeting: the transcript keeps what was played, marked.
    expect(call.transcript).toHaveLength(1);
    expect(call.transcript[0]).toMatchObject({ role: "agent", interrupted: true });
    expect("Hello, this is Acme. I am calling about your recent order with us.".startsWith(call.transcript[0].text)).toBe(true);
    expect(farEnd(callId).ended).toBe("remote_hangup");
  }, CALL_TIMEOUT);

  test("live controls: say is spoken, transfer moves the call; on an ended call say, transfer and hangup are 409", async () => {
    const agent = await calls().createAgent({ name: "Controlled", first_message: "Hello, this is Acme." });
    const callId = await calls().place(agent.id, { behaviour: "silent" });
    await calls().waitFor(callId, (c) => c.transcript?.length === 1);
    const said = await calls().post(`/v1/calls/${callId}/say`, { text: "Your table is ready." });
    expect(said.status).toBe(202);
    expect(said.body).toEqual({ status: "accepted" });
    const withSay = await calls().waitFor(callId, (c) => c.transcript?.length === 2);
    expect(withSay.transcript[1]).toMatchObject({ role: "agent", text: "Your table is ready.", interrupted: false });
    expect(farEnd(callId).callee!.agentFramesHeard * 20).toBeGreaterThanOrEqual(withSay.transcript[1].end_ms - withSay.transcript[0].start_ms - 3000);

    const transferred = await calls().post(`/v1/calls/${callId}/transfer`, { to: "+15550003333", reason: "the supervisor takes over" });
    expect(transferred.status).toBe(202);
    expect(transferred.body).toMatchObject({ id: callId, status: "transferred", end_reason: "transferred", transferred_to: "+15550003333" });
    expect(farEnd(callId).transferredTo).toBe("+15550003333");
    const timeline = await calls().timeline(callId);
    expect(timeline.find((e) => e.type === "say")?.data).toEqual({ text: "Your table is ready." });
    expect(timeline.find((e) => e.type === "transfer")?.data).toEqual({ to: "+15550003333", reason: "the supervisor takes over" });

    for (const [path, body] of [["say", { text: "Hello?" }], ["transfer", { to: "+15550003333" }], ["hangup", undefined]] as const) {
      const res = await calls().post(`/v1/calls/${callId}/${path}`, body);
      expect(`${path} ${res.status} ${res.body.code}`).toBe(`${path} 409 invalid_state`);
    }
  }, CALL_TIMEOUT);

  test("live controls: hangup ends the call agent_hangup at once", async () => {
    const agent = await calls().createAgent({ name: "Hung up", first_message: "Hello, this is Acme." });
    const callId = await calls().place(agent.id, { behaviour: "silent" });
    await calls().waitFor(callId, (c) => c.status === "in_progress");
    const res = await calls().post(`/v1/calls/${callId}/hangup`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: callId, status: "completed", end_reason: "agent_hangup" });
    expect(farEnd(callId).ended).toBe("local_hangup");
  }, CALL_TIMEOUT);
});
