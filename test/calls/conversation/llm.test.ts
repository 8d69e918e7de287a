// Phone conversations with language-model agents against a local OpenAI-protocol server: streamed
// replies spoken sentence by sentence, tool calls with real effects, provider failures mid-call,
// extraction after the call, and every event as the receivers see it.
import { describe, expect, test } from "bun:test";
import { CALL_TIMEOUT, conversationFile, deliveries, delivery, farEnd, formatTranscript, turnTaking } from "../../helpers/call-driver.ts";
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReply } from "../../helpers/fake-openai.ts";
import { startReceiver, type Receiver } from "../../helpers/webhook-receiver.ts";
import { adminKey, createEndpoint, verifySignatures } from "../../helpers/webhooks.ts";

const { s, calls, stoppers } = conversationFile("llm");

function fakeModel(reply: (body: any) => ScriptedReply): FakeOpenAI {
  const fake = startFakeOpenAI();
  fake.script((body) => reply(body));
  stoppers.push(() => fake.stop());
  return fake;
}

function receiver(respond?: (request: any) => Response): Receiver {
  const r = startReceiver(respond);
  stoppers.push(() => r.stop());
  return r;
}

/** What the model is answering: the caller's last words, or the tool whose result just came back. */
function lastMessage(body: any): { role: string; content: string; tool?: string } {
  const last = body.messages.at(-1);
  if (last.role !== "tool") return last;
  // The fake numbers its tool calls from call_0 in every reply: the latest with that id is the one.
  const call = body.messages.flatMap((m: any) => m.tool_calls ?? []).findLast((c: any) => c.id === last.tool_call_id);
  return { ...last, tool: call?.function.name };
}

const chats = (fake: FakeOpenAI) => fake.requests.filter((r) => r.path === "/v1/chat/completions").map((r) => r.body);

async function llmAgent(fake: FakeOpenAI, body: Record<string, unknown>) {
  const provider = await calls().createProvider(fake.url);
  return calls().createAgent({
    first_message: "Hello, this is Acme.",
    system_prompt: "You are the phone agent of Acme.",
    ...body,
    brain: { type: "llm", provider_id: provider, model: "fake-chat", ...((body.brain as object) ?? {}) },
  });
}

describe.concurrent("llm agents on the phone", () => {
  test("a slowly streamed reply is spoken sentence by sentence: the caller hears it before the model finishes", async () => {
    const fake = fakeModel(() => ({ text: ["We are open from nine to five on weekdays. ", "On Saturdays ", "we open at ten."], pieceDelayMs: 800 }));
    const agent = await llmAgent(fake, { name: "Streamer" });
    const callId = await calls().place(agent.id, { lines: ["When are you open?", "goodbye"] });
    const call = await calls().ended(callId);
    expect(formatTranscript(call.transcript)).toBe(
      [
        "agent: Hello, this is Acme.",
        "caller: When are you open?",
        "agent: We are open from nine to five on weekdays. On Saturdays we open at ten.",
        "caller: goodbye",
        "agent: Thank you for calling. Goodbye!",
      ].join("\n"),
    );
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    const [request] = chats(fake);
    expect(request).toMatchObject({ model: "fake-chat", stream: true });
    expect(request.messages).toEqual([
      { role: "system", content: "You are the phone agent of Acme." },
      { role: "assistant", content: "Hello, this is Acme." },
      { role: "user", content: "When are you open?" },
    ]);
    // The model needed 1.6 s to finish; the first sentence was on the line long before that.
    const [latency] = (await calls().timeline(callId)).filter((e) => e.type === "latency");
    expect(latency.data.llm_ttft_ms).toBeLessThan(800);
    expect(latency.data.end_to_end_ms).toBeLessThan(1200);
    expect(latency.data.tts_ttfb_ms).toBeGreaterThanOrEqual(0);
  }, CALL_TIMEOUT);

  test("a turn the model leaves unanswered: the reminder fills the silence and no latency is measured for it", async () => {
    const fake = fakeModel(() => ({ text: [] }));
    const agent = await llmAgent(fake, {
      name: "Mute",
      turn_taking: turnTaking({ silence: { reminder_after_s: 2, reminder_message: "Are you still there?", timeout_s: 20 } }),
    });
    const callId = await calls().place(agent.id, { lines: ["Hello", "goodbye"] });
    const call = await calls().ended(callId);
    expect(formatTranscript(call.transcript)).toBe(["agent: Hello, this is Acme.", "caller: Hello", "agent: Are you still there?", "caller: goodbye", "agent: Thank you for calling. Goodbye!"].join("\n"));
    // One turn was answered (the goodbye), so one latency, and it is that turn's, not the 2 s of silence before the reminder.
    const latencies = (await calls().timeline(callId)).filter((e) => e.type === "latency");
    expect(latencies).toHaveLength(1);
    expect(latencies[0].data.end_to_end_ms).toBeLessThan(1500);
  }, CALL_TIMEOUT);

  test("tool calls: a webhook tool, knowledge_search, send_dtmf and end_call, each with its effect", async () => {
    const orders = receiver((request) => Response.json({ status: JSON.parse(request.body).arguments.order === "4217" ? "on its way" : "unknown" }));
    const fake = fakeModel((body) => {
      if (body.response_format) return { text: ["{}"] };
      const last = lastMessage(body);
      if (last.tool === "order_status") return { text: [`Your order is ${JSON.parse(last.content)}.`] };
      if (last.tool === "knowledge_search") return { text: [last.content.includes("Saturdays we open at 10am") ? "On Saturdays we open at ten." : "I do not know."] };
      if (last.tool === "send_dtmf") return { text: ["I pressed one for you."] };
      if (last.content.includes("order")) return { toolCalls: [{ name: "order_status", arguments: { order: "4217" } }] };
      if (last.content.includes("Saturday")) return { toolCalls: [{ name: "knowledge_search", arguments: { query: "Saturday opening hours" } }] };
      if (last.content.includes("press")) return { toolCalls: [{ name: "send_dtmf", arguments: { digits: "1" } }] };
      return { text: ["Thanks for calling."], toolCalls: [{ name: "end_call", arguments: { reason: "done" } }] };
    });
    const tool = await calls().post("/v1/tools", {
      name: "order_status",
      description: "Where an order is",
      url: orders.url,
      response_path: "status",
      parameters: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
    });
    expect(tool.status).toBe(201);
    const kb = await calls().createKnowledgeBase("Tool hours", "# Opening hours\n\nOn Saturdays we open at 10am and close at 2pm. We are closed on Sundays.");
    const agent = await llmAgent(fake, {
      name: "Tools",
      knowledge_base_ids: [kb],
      tools: [{ type: "function", tool_id: tool.body.id }, { type: "knowledge_search" }, { type: "send_dtmf" }, { type: "end_call" }],
    });
    const callId = await calls().place(agent.id, { lines: ["Where is my order?", "Are you open on Saturday?", "Please press one for me", "That is all"] });
    const call = await calls().ended(callId);
    expect(formatTranscript(call.transcript)).toBe(
      [
        "agent: Hello, this is Acme.",
        "caller: Where is my order?",
        "agent: Your order is on its way.",
        "caller: Are you open on Saturday?",
        "agent: On Saturdays we open at ten.",
        "caller: Please press one for me",
        "agent: I pressed one for you.",
        "caller: That is all",
        "agent: Thanks for calling.",
      ].join("\n"),
    );
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    // The webhook tool was really called, for this call.
    expect(orders.requests).toHaveLength(1);
    expect(JSON.parse(orders.requests[0].body)).toMatchObject({ tool: "order_status", arguments: { order: "4217" }, conversation_id: callId, agent_id: agent.id });
    const toolCalls = (await calls().timeline(callId)).filter((e) => e.type === "tool_call").map((e) => e.data);
    expect(toolCalls.map((c) => `${c.name} ${c.ok}`)).toEqual(["order_status true", "knowledge_search true", "send_dtmf true", "end_call true"]);
    expect(toolCalls[0].result).toBe("on its way");
    // The keys went down the line.
    expect(farEnd(callId).sentDigits).toEqual(["1"]);
    expect(farEnd(callId).ended).toBe("local_hangup");
    // The model was offered exactly the agent's tools.
    expect(chats(fake)[0].tools.map((t: any) => t.function.name)).toEqual(["order_status", "end_call", "knowledge_search", "send_dtmf"]);
  }, CALL_TIMEOUT);

  test("transfer_call: the agent says so, the carrier transfers, the call ends transferred and says where", async () => {
    const fake = fakeModel(() => ({ text: ["Let me connect you to a colleague."], toolCalls: [{ name: "transfer_call", arguments: { reason: "caller asked" } }] }));
    const hooks = receiver();
    const agent = await llmAgent(fake, { name: "Transferrer", transfer_number: "+15550002222", tools: [{ type: "transfer_call" }], webhook_url: hooks.url });
    const callId = await calls().place(agent.id, { lines: ["I want to talk to a person"] });
    const call = await calls().ended(callId);
    expect(call).toMatchObject({ status: "transferred", end_reason: "transferred", transferred_to: "+15550002222" });
    expect(call.transcript.at(-1)).toMatchObject({ role: "agent", text: "Let me connect you to a colleague.", interrupted: false });
    expect(farEnd(callId).transferredTo).toBe("+15550002222");
    const transfer = await delivery(hooks, (body) => body.type === "call.transfer");
    expect(transfer.body).toMatchObject({ call_id: callId, agent_id: agent.id, data: { to: "+15550002222", reason: "the agent transferred the call" } });
    const ended = await delivery(hooks, (body) => body.type === "call.ended");
    expect(ended.body.data).toMatchObject({ status: "transferred", end_reason: "transferred" });
  }, CALL_TIMEOUT);

  test("the model fails mid-call: the agent says its fallback line, call.error goes out, the call carries on", async () => {
    const fake = fakeModel((body) => {
      const said = lastMessage(body).content;
      if (said.includes("weather")) return { fail: { status: 500, body: "the model crashed" } };
      return { text: [said.includes("back") ? "Yes, I am back." : "Hi, how can I help?"] };
    });
    const hooks = receiver();
    const agent = await llmAgent(fake, { name: "Flaky", brain: { fallback_message: "Sorry, one moment please." }, webhook_url: hooks.url });
    const callId = await calls().place(agent.id, { lines: ["Hi there", "How is the weather", "Are you back now?", "goodbye"] });
    const call = await calls().ended(callId);
    expect(formatTranscript(call.transcript)).toBe(
      [
        "agent: Hello, this is Acme.",
        "caller: Hi there",
        "agent: Hi, how can I help?",
        "caller: How is the weather",
        "agent: Sorry, one moment please.",
        "caller: Are you back now?",
        "agent: Yes, I am back.",
        "caller: goodbye",
        "agent: Thank you for calling. Goodbye!",
      ].join("\n"),
    );
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    const error = await delivery(hooks, (body) => body.type === "call.error");
    expect(error.body).toMatchObject({ call_id: callId, data: { code: "brain_failed", fatal: false } });
    expect(error.body.data.message).toContain("HTTP 500: the model crashed");
    expect(deliveries(hooks).filter((d) => d.body.type === "call.error")).toHaveLength(1);
  }, CALL_TIMEOUT);

  test("after the call: extraction by the model, call.completed at the workspace endpoint, lifecycle events at the agent's URL", async () => {
    const extraction = { summary: "The caller has a billing question and wants a call back.", wants_callback: true, topic: "Billing" };
    const fake = fakeModel((body) => (body.response_format ? { text: [JSON.stringify(extraction)] } : { text: ["Someone from billing will call you back."] }));
    const hooks = receiver();
    const outcomes = receiver();
    const key = await adminKey(s.server, s.user.token);
    const endpoint = await createEndpoint(s.server, key, outcomes.url, ["call.completed"]);
    const agent = await llmAgent(fake, {
      name: "Extractor",
      webhook_url: hooks.url,
      extraction: [
        { name: "wants_callback", type: "boolean", description: "Whether the caller wants a call back" },
        { name: "topic", type: "enum", description: "What it is about", options: ["billing", "sales", "support"] },
        { name: "order_number", type: "string", description: "The order number, if one was given" },
      ],
    });
    const callId = await calls().place(agent.id, { lines: ["I have a billing question", "goodbye"] }, { metadata: { crm_id: "42" } });
    // Edited while the call runs: the call still extracts what its own version of the agent asked for.
    const edited = await s.server.api.patch(`/v1/agents/${agent.id}`, { extraction: [] }, { token: s.user.token });
    expect(edited.status).toBe(200);
    const call = await calls().finalized(callId);
    expect(call).toMatchObject({ status: "completed", extracted: { wants_callback: true, topic: "billing", order_number: null }, summary: extraction.summary });

    // The extraction request: the transcript, and a JSON schema with the agent's fields.
    const request = chats(fake).find((body) => body.response_format);
    expect(request.response_format).toMatchObject({ type: "json_schema" });
    const schema = request.response_format.json_schema.schema;
    expect(Object.keys(schema.properties).sort()).toEqual(["order_number", "summary", "topic", "wants_callback"]);
    expect(schema.properties.topic).toMatchObject({ type: "string", enum: ["billing", "sales", "support"] });
    expect(request.messages.at(-1).content).toBe(call.transcript.map((t: any) => `${t.role === "agent" ? "Agent" : "Caller"}: ${t.text}`).join("\n"));

    // Set B: the outcome at the workspace endpoint, signed with its secret.
    const completed = await delivery(outcomes, (body) => body.event === "call.completed");
    expect(verifySignatures({ ...outcomes.requests.find((r) => r.body === completed.raw)!, body: completed.raw }, endpoint.secret)).toEqual({ brand: true, standard: true });
    expect(completed.body).toEqual({ event: "call.completed", id: expect.stringMatching(/^evt_/), ts: expect.any(String), data: expect.any(Object) });
    expect(completed.body.data).toEqual({
      call_id: callId,
      agent_id: agent.id,
      direction: "outbound",
      from: call.from,
      to: "+12125550150",
      status: "completed",
      end_reason: "agent_hangup",
      started_at: call.started_at,
      ended_at: call.ended_at,
      duration_seconds: Math.round(call.duration_ms / 1000),
      transcript: call.transcript.map((turn: { role: string; text: string; interrupted: boolean }) => `${turn.role === "agent" ? "Agent" : "Caller"}: ${turn.text}${turn.interrupted ? " [interrupted]" : ""}`).join("\n"),
      transcript_turns: call.transcript,
      extracted: call.extracted,
      summary: extraction.summary,
      recording_url: call.recording_url,
      metadata: { crm_id: "42" },
    });
    expect(completed.body.data.recording_url).toMatch(new RegExp(`/v1/calls/${callId}/recording\\.mp3$`));

    // Set A at the agent's webhook_url: started, one transcript event per turn, ended; all signed.
    const turns = call.transcript.length;
    await hooks.waitFor(turns + 2);
    const events = deliveries(hooks);
    for (const event of events) {
      expect(verifySignatures({ ...hooks.requests.find((r) => r.body === event.raw)!, body: event.raw }, agent.webhookSecret)).toEqual({ brand: true, standard: true });
      expect(event.body).toMatchObject({ event_id: expect.stringMatching(/^evt_/), call_id: callId, agent_id: agent.id, timestamp: expect.any(String) });
    }
    expect(new Set(events.map((e) => e.body.event_id)).size).toBe(events.length);
    expect(events.map((e) => e.body.type).sort()).toEqual(["call.ended", "call.started", ...Array(turns).fill("call.transcript")].sort());
    expect(events.find((e) => e.body.type === "call.started")!.body.data).toEqual({
      call_id: callId,
      agent_id: agent.id,
      direction: "outbound",
      from: call.from,
      to: "+12125550150",
      started_at: call.started_at,
    });
    const transcriptEvents = events.filter((e) => e.body.type === "call.transcript").map((e) => e.body.data);
    expect(transcriptEvents.sort((a, b) => a.turn - b.turn)).toEqual(call.transcript.map((turn: any, index: number) => ({ turn: index, ...turn })));
    expect(events.find((e) => e.body.type === "call.ended")!.body.data).toEqual({
      status: "completed",
      end_reason: "agent_hangup",
      duration_ms: call.duration_ms,
      transcript_url: `${s.server.ctx.publicUrl}/v1/calls/${callId}/transcript`,
      recording_url: call.recording_url,
    });
  }, CALL_TIMEOUT);
});
