// Test cases run as real simulated calls through the whole voice loop (runTestCase), against a real
// server: flow and LLM agents, tools called for real and mocked, keys, hang-ups, a model-played caller,
// rubrics judged by a local OpenAI-protocol fake, and a judge that cannot be reached.
import { describe, expect, test } from "bun:test";
import type { TestCaseDefinition } from "../../src/modules/agent-tests/definition.ts";
import { runTestCase } from "../../src/modules/agent-tests/runner/run-case.ts";
import { runnerDeps } from "../../src/server.ts";
import { CALL_TIMEOUT, conversationFile } from "../helpers/call-driver.ts";
import { startFakeOpenAI, type FakeOpenAI, type ScriptedReply } from "../helpers/fake-openai.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import { speech } from "../helpers/softphone.ts";
import { LONG_REPLY } from "../helpers/turn-caller.ts";
import { encodeWav } from "../../src/voice/media/wav-format.ts";
import { pocketsphinxAvailability } from "../../src/voice/speech/builtin/index.ts";

const { s, calls, stoppers } = conversationFile("runner");

function fakeModel(reply: (body: any) => ScriptedReply): FakeOpenAI {
  const fake = startFakeOpenAI();
  fake.script((body) => reply(body));
  stoppers.push(() => fake.stop());
  return fake;
}

function receiver(respond?: () => Response): Receiver {
  const r = startReceiver(respond);
  stoppers.push(() => r.stop());
  return r;
}

/** An order-status tool whose URL is a loopback receiver. */
async function orderTool(orders: Receiver): Promise<string> {
  const tool = await calls().post("/v1/tools", {
    name: `order_status_${crypto.randomUUID().slice(0, 8)}`,
    description: "Where an order is",
    url: orders.url,
    response_path: "status",
    parameters: { type: "object", properties: { order: { type: "string" } }, required: ["order"] },
  });
  expect(tool.status).toBe(201);
  return tool.body.id;
}

const lastWords = (body: any): string => body.messages.at(-1).content ?? "";
/** An agent, with the version test calls run. */
async function agentWithVersion(body: Record<string, unknown>): Promise<{ id: string; version: number }> {
  const agent = await calls().createAgent(body);
  const read = await s.server.api.get(`/v1/agents/${agent.id}`, { token: s.user.token });
  return { id: agent.id, version: read.body.version };
}

function run(agent: { id: string; version: number }, definition: TestCaseDefinition, signal = new AbortController().signal) {
  const deps = runnerDeps(s.server.ctx);
  return runTestCase(deps, { workspaceId: s.user.workspaceId, agentId: agent.id, agentVersion: agent.version, testRunId: null, definition }, signal);
}

const failures = (verdict: Awaited<ReturnType<typeof run>>) => verdict.checks.filter((check) => !check.passed).map((check) => check.detail);

function helpDesk() {
  return agentWithVersion({
    name: "Help desk",
    first_message: "Hello, this is Acme.",
    brain: {
      type: "flow",
      flow: {
        start: "name",
        nodes: {
          name: { type: "ask", text: "May I have your name?", slot: { name: "name", type: "string" }, next: "thanks" },
          thanks: { type: "end", text: "Thanks {{name}}. Goodbye!" },
        },
      },
    },
    extraction: [{ name: "name", type: "string", description: "The caller's name" }],
  });
}

describe.concurrent("runTestCase", () => {
  test("a flow agent answers a scripted caller: every expectation passes, with the transcript and latencies", async () => {
    const agent = await helpDesk();
    const verdict = await run(agent, {
      name: "gives a name",
      caller: { type: "script", turns: [{ say: "My name is Ada" }] },
      expectations: [
        { type: "agent_says", turn: 0, contains: "may I have your name" },
        { type: "agent_says", turn: 1, regex: "thanks ada" },
        { type: "extracted", field: "name", equals: "ada" },
        { type: "ended", status: "completed", end_reason: "agent_hangup" },
        { type: "max_turns", turns: 2 },
        { type: "latency", max_ms: 10_000 },
        { type: "max_silence", max_ms: 10_000 },
      ],
    });
    expect(failures(verdict)).toEqual([]);
    expect(verdict).toMatchObject({ status: "passed", error: null });
    expect(verdict.transcript.map((turn) => `${turn.role}: ${turn.text}`)).toEqual(["agent: Hello, this is Acme. May I have your name?", "caller: My name is Ada", "agent: Thanks Ada. Goodbye!"]);
    expect(verdict.latencies).toHaveLength(1);
    expect(verdict.latencies[0].turn).toBe(1);
  }, CALL_TIMEOUT);

  test("a changed greeting breaks an expectation: the case fails saying which turn said what", async () => {
    const agent = await helpDesk();
    const verdict = await run(agent, {
      name: "greets as before",
      caller: { type: "script", turns: [{ say: "My name is Ada" }] },
      expectations: [
        { type: "agent_says", turn: 0, contains: "welcome to Acme" },
        { type: "ended", status: "completed" },
      ],
    });
    expect(verdict.status).toBe("failed");
    expect(failures(verdict)).toEqual(['agent turn 0 said "Hello, this is Acme. May I have your name?"; expected it to contain "welcome to Acme"']);
  }, CALL_TIMEOUT);

  test("keys pressed (a pause between them) fill a digits slot; the flow's tool is called for real against its URL; the agent reads its answer", async () => {
    const orders = receiver(() => Response.json({ status: "shipped" }));
    const toolId = await orderTool(orders);
    const agent = await agentWithVersion({
      name: "Orders by keypad",
      brain: {
        type: "flow",
        flow: {
          start: "order",
          nodes: {
            order: { type: "ask", text: "Please key in your order number.", slot: { name: "order", type: "digits", length: 4 }, next: "lookup" },
            lookup: { type: "tool", tool_id: toolId, arguments: { order: "{{order}}" }, save_as: "order_status", next: "done" },
            done: { type: "end", text: "Your order is {{order_status}}. Goodbye!" },
          },
        },
      },
    });
    const verdict = await run(agent, {
      name: "order by keys",
      // A pause goes on without waiting for the agent: both presses make one entry (keys 1.5 s apart would not).
      caller: { type: "script", turns: [{ dtmf: "42" }, { pause_ms: 300 }, { dtmf: "17" }] },
      expectations: [
        { type: "tool_called", tool: toolId, arguments: { order: "4217" }, times: 1 },
        { type: "agent_says", turn: 1, contains: "your order is shipped" },
        { type: "ended", end_reason: "agent_hangup" },
      ],
    });
    expect(failures(verdict)).toEqual([]);
    expect(verdict.status).toBe("passed");
    expect(verdict.transcript.map((turn) => turn.text)).toContain("[keyed 4217]");
    expect(orders.requests).toHaveLength(1);
    expect(JSON.parse(orders.requests[0].body)).toMatchObject({ arguments: { order: "4217" }, conversation_id: verdict.callId });
  }, CALL_TIMEOUT);

  test("an LLM agent's tool mocked: the URL is never called, the mock's answer is spoken, the invocation is on the timeline; a wrong argument fails", async () => {
    const orders = receiver(() => Response.json({ status: "shipped" }));
    const toolId = await orderTool(orders);
    const toolName = (await s.server.api.get(`/v1/tools/${toolId}`, { token: s.user.token })).body.name as string;
    const fake = fakeModel((body) => {
      const last = body.messages.at(-1);
      if (last.role === "tool") return { text: [`Your order is ${JSON.parse(last.content)}.`] };
      if (lastWords(body).includes("order")) return { toolCalls: [{ name: toolName, arguments: { order: "4217" } }] };
      return { text: ["Goodbye."], toolCalls: [{ name: "end_call", arguments: { reason: "done" } }] };
    });
    const provider = await calls().createProvider(fake.url);
    const agent = await agentWithVersion({
      name: "Orders by voice",
      first_message: "Hello, this is Acme.",
      system_prompt: "You are the phone agent of Acme.",
      brain: { type: "llm", provider_id: provider, model: "fake-chat" },
      tools: [{ type: "function", tool_id: toolId }, { type: "end_call" }],
    });
    const verdict = await run(agent, {
      name: "order by voice, mocked",
      caller: { type: "script", turns: [{ say: "Where is my order 4217?" }, { say: "That is all" }] },
      tool_mocks: [{ tool: toolName, result: "lost in the post" }],
      expectations: [
        { type: "agent_says", turn: 1, contains: "your order is lost in the post" },
        { type: "tool_called", tool: toolName, arguments: { order: "4217" } },
        { type: "tool_called", tool: toolId, arguments: { order: "9999" } },
        { type: "ended", status: "completed", end_reason: "agent_hangup" },
      ],
    });
    expect(verdict.status).toBe("failed");
    expect(failures(verdict)).toEqual([`${toolId} was called 1 time: ${toolName}({"order":"4217"}), 0 matching; expected ${toolId} with {"order":"9999"} called at least once`]);
    expect(orders.requests).toHaveLength(0);
    const timeline = await calls().timeline(verdict.callId!);
    expect(timeline.find((event) => event.type === "tool_call")?.data).toMatchObject({ name: toolName, arguments: { order: "4217" }, ok: true, result: "lost in the post" });
  }, CALL_TIMEOUT);

  test("the caller hangs up mid-call: the call ends as the customer's hang-up", async () => {
    const agent = await helpDesk();
    const verdict = await run(agent, {
      name: "hangs up",
      caller: { type: "script", turns: [{ hangup: true }] },
      expectations: [{ type: "ended", status: "completed", end_reason: "customer_hangup" }, { type: "max_turns", turns: 1 }],
    });
    expect(failures(verdict)).toEqual([]);
    expect(verdict.transcript.map((turn) => turn.role)).toEqual(["agent"]);
  }, CALL_TIMEOUT);

  test("a model-played caller reaches its goal: the marker is stripped from its words, it hangs up", async () => {
    const model = fakeModel((body) => {
      const system = body.messages[0].content as string;
      if (!system.includes("You are the caller")) return { text: ["?"] };
      return lastWords(body).includes("booked") ? { text: ["Great, thank you. Bye! [GOAL REACHED]"] } : { text: ["My name is Ada."] };
    });
    const provider = await calls().createProvider(model.url);
    const agent = await agentWithVersion({
      name: "Bookings",
      first_message: "Hello, this is Acme bookings.",
      brain: {
        type: "flow",
        flow: {
          start: "name",
          nodes: {
            name: { type: "ask", text: "May I have your name?", slot: { name: "name", type: "string" }, next: "booked" },
            booked: { type: "ask", text: "Thanks {{name}}, your table is booked. Anything else?", slot: { name: "more", type: "string" }, next: "bye" },
            bye: { type: "end", text: "Goodbye!" },
          },
        },
      },
    });
    const verdict = await run(agent, {
      name: "books a table",
      caller: { type: "model", provider_id: provider, model: "fake-chat", persona: "Ada, a regular", goal: "Book a table", max_turns: 4 },
      expectations: [{ type: "goal_reached" }, { type: "agent_says", turn: 1, contains: "your table is booked" }],
    });
    expect(failures(verdict)).toEqual([]);
    expect(verdict.status).toBe("passed");
    const callerLines = verdict.transcript.filter((turn) => turn.role === "caller").map((turn) => turn.text);
    expect(callerLines).toEqual(["My name is Ada.", "Great, thank you. Bye!"]);
    const asked = model.requests.filter((request) => request.path === "/v1/chat/completions").map((request) => request.body);
    expect(asked).toHaveLength(2);
    expect(asked[0].messages[0].content).toContain("Book a table");
    // The caller model saw the agent's words as the other side of the conversation.
    expect(asked[1].messages.map((m: any) => `${m.role}: ${m.content}`).slice(1)).toEqual([
      "user: Hello, this is Acme bookings. May I have your name?",
      "assistant: My name is Ada.",
      "user: Thanks Ada, your table is booked. Anything else?",
    ]);
  }, CALL_TIMEOUT);

  test("a model-played caller whose model fails: the caller hangs up and the case is an error saying why", async () => {
    const broken = fakeModel(() => ({ fail: { status: 500, body: "model crashed" } }));
    const provider = await calls().createProvider(broken.url);
    const agent = await helpDesk();
    const verdict = await run(agent, {
      name: "caller model down",
      caller: { type: "model", provider_id: provider, persona: "Ada", goal: "Give her name" },
      expectations: [{ type: "goal_reached" }],
    });
    expect(verdict.status).toBe("error");
    expect(verdict.error).toStartWith("the model-played caller could not go on at its turn 1: the model server answered HTTP 500");
    expect((await calls().call(verdict.callId!)).end_reason).toBe("customer_hangup");
  }, CALL_TIMEOUT);

  test("a rubric judged by a language model: the judge's pass and fail, with its reason", async () => {
    const judge = fakeModel((body) => {
      const question = lastWords(body);
      return question.includes("polite") ? { text: ['{"pass": true, "reason": "it thanks the caller by name"}'] } : { text: ['Verdict: {"pass": false, "reason": "it never mentions a refund"}'] };
    });
    const judgeId = await calls().createProvider(judge.url);
    const agent = await helpDesk();
    const verdict = await run(agent, {
      name: "judged",
      caller: { type: "script", turns: [{ say: "My name is Ada" }] },
      expectations: [
        { type: "agent_says", turn: 1, rubric: "The agent is polite", judge_provider_id: judgeId },
        { type: "agent_says", rubric: "The agent offers a refund", judge_provider_id: judgeId },
      ],
    });
    expect(verdict.status).toBe("failed");
    expect(verdict.checks.map((check) => check.passed)).toEqual([true, false]);
    expect(verdict.checks[0].detail).toBe('agent turn 1 said "Thanks Ada. Goodbye!"; the judge found it meets the rubric: it thanks the caller by name');
    expect(verdict.checks[1].detail).toContain("does not meet the rubric: it never mentions a refund");
    const asked = judge.requests.filter((request) => request.path === "/v1/chat/completions").map((request) => request.body);
    expect(asked[0].messages.at(-1).content).toContain("Caller: My name is Ada");
  }, CALL_TIMEOUT);

  test("a judge that cannot be reached makes the case an error, never a pass", async () => {
    const closed = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const url = `http://127.0.0.1:${closed.port}/v1`;
    closed.stop(true);
    const judgeId = await calls().createProvider(url);
    const agent = await helpDesk();
    const verdict = await run(agent, {
      name: "judge away",
      caller: { type: "script", turns: [{ say: "My name is Ada" }] },
      expectations: [{ type: "ended", status: "completed" }, { type: "agent_says", rubric: "The agent is polite", judge_provider_id: judgeId }],
    });
    expect(verdict.status).toBe("error");
    expect(verdict.error).toStartWith("expectations[1]: the judge could not be reached");
    expect(verdict.callId).not.toBeNull();
  }, CALL_TIMEOUT);

  test("timeout_seconds ends a call that goes on and fails the case; a cancel hangs up and is an error", async () => {
    const agent = await helpDesk();
    const slow = run(agent, { name: "too long", caller: { type: "script", turns: [{ silence_ms: 60_000 }] }, timeout_seconds: 5, expectations: [] });
    const abort = new AbortController();
    const canceled = run(agent, { name: "canceled", caller: { type: "script", turns: [{ silence_ms: 60_000 }] }, expectations: [] }, abort.signal);
    setTimeout(() => abort.abort(), 2000);
    const [timedOut, cancel] = await Promise.all([slow, canceled]);
    expect(timedOut.status).toBe("failed");
    expect(failures(timedOut)).toEqual(["the call was still going after 5 s (timeout_seconds); the caller hung up"]);
    expect(cancel).toMatchObject({ status: "error", error: "the run was canceled" });
    const call = await calls().call(cancel.callId!);
    expect(call.end_reason).toBe("customer_hangup");
  }, CALL_TIMEOUT);

  test("barge_in: the caller talks over a long question once it is under way; the agent's turn is cut and the call goes on", async () => {
    const agent = await agentWithVersion({
      name: "Long winded",
      brain: {
        type: "flow",
        flow: {
          start: "name",
          nodes: {
            name: { type: "ask", text: `${LONG_REPLY} May I have your name?`, slot: { name: "name", type: "string" }, next: "bye" },
            bye: { type: "end", text: "Thanks {{name}}. Goodbye!" },
          },
        },
      },
    });
    const verdict = await run(agent, {
      name: "cuts in",
      caller: { type: "script", turns: [{ say: "My name is Ada", barge_in: true, barge_in_after_ms: 1500 }] },
      expectations: [{ type: "agent_says", turn: 1, contains: "thanks ada" }],
    });
    expect(failures(verdict)).toEqual([]);
    expect(verdict.transcript[0]).toMatchObject({ role: "agent", interrupted: true });
    expect(verdict.transcript[0].text.length).toBeLessThan(LONG_REPLY.length);
    // It spoke over the agent, not after it: its words start before the cut turn's audio would have ended.
    expect(verdict.transcript[1]).toMatchObject({ role: "caller", text: "My name is Ada" });
    expect(verdict.transcript[1].start_ms).toBeLessThan(verdict.transcript[0].end_ms);
  }, CALL_TIMEOUT);

  test("channel web with variables; a phone call's from is the caller_number", async () => {
    const agent = await agentWithVersion({
      name: "Greeter",
      brain: { type: "flow", flow: { start: "hello", nodes: { hello: { type: "end", text: "Hello {{customer}}, you called from {{caller_number}}." } } } },
    });
    const [web, phone] = await Promise.all([
      run(agent, { name: "web", channel: "web", variables: { customer: "Grace", caller_number: "nowhere" }, caller: { type: "script", turns: [{ silence_ms: 100 }] }, expectations: [{ type: "agent_says", turn: 0, contains: "hello grace you called from nowhere" }] }),
      run(agent, { name: "phone", from: "+15550109999", variables: { customer: "Alan" }, caller: { type: "script", turns: [{ silence_ms: 100 }] }, expectations: [{ type: "agent_says", turn: 0, regex: "Alan, you called from \\+15550109999" }] }),
    ]);
    expect(failures(web)).toEqual([]);
    expect(failures(phone)).toEqual([]);
    expect(await calls().call(web.callId!)).toMatchObject({ direction: "web", from: null });
    expect(await calls().call(phone.callId!)).toMatchObject({ direction: "inbound", from: "+15550109999" });
  }, CALL_TIMEOUT);

  const sphinx = pocketsphinxAvailability();
  test.skipIf(!sphinx.available)("an audio turn (a 16 kHz stereo WAV) is played down the line and heard by the agent's own recogniser", async () => {
    const agent = await helpDesk();
    const mono = await speech("My name is Ada", 16_000);
    const stereo = new Int16Array(mono.length * 2);
    mono.forEach((sample, i) => (stereo[2 * i] = stereo[2 * i + 1] = sample));
    const audio = Buffer.from(encodeWav(stereo, { sampleRate: 16_000, channels: 2 })).toString("base64");
    const verdict = await run(agent, {
      name: "by ear",
      caller: { type: "script", turns: [{ audio }] },
      expectations: [{ type: "agent_says", turn: 1, regex: "^thanks " }],
    });
    expect(failures(verdict)).toEqual([]);
    const engines = (await calls().timeline(verdict.callId!)).find((event) => event.type === "engines")?.data;
    expect(engines?.stt).toBe("builtin:pocketsphinx");
    expect(verdict.transcript.filter((turn) => turn.role === "caller").length).toBeGreaterThan(0);
  }, CALL_TIMEOUT);
});
