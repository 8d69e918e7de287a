import { describe, expect, test } from "bun:test";
import { startFakeOpenAI } from "../helpers/fake-openai.ts";
import { createKey, serverWithUser } from "../helpers/fixtures.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { TEMPLATES } from "../../src/dashboard/screens/agents/templates.ts";

const s = serverWithUser("owner");
const token = () => s.user.token;
const say = (agentId: string, body: Record<string, unknown>) => s.server.api.post(`/v1/agents/${agentId}/chat`, body, { token: token() });

describe("chat with a flow brain (offline, no model)", () => {
  test("asks for typed slots, re-prompts, branches on them, calls a tool and ends", async () => {
    const orders = startReceiver((request) => Response.json({ status: JSON.parse(request.body).arguments.order === "4217" ? "on its way" : "unknown" }));
    const tool = await s.server.api.post("/v1/tools", { name: "order_status", description: "Order status", url: orders.url, response_path: "status" }, { token: token() });
    const flow = {
      start: "greet",
      nodes: {
        greet: { type: "say", text: "Welcome to Acme, {{customer}}.", next: "name" },
        name: { type: "ask", text: "What is your name?", slot: { name: "name", type: "string" }, next: "order" },
        order: { type: "ask", text: "What is your order number?", reprompt: "Please say the four digits.", slot: { name: "order", type: "digits", length: 4 }, next: "lookup" },
        lookup: { type: "tool", tool_id: tool.body.id, arguments: { order: "{{order}}" }, save_as: "status", text: "Thanks {{name}}, order {{order}} is {{status}}.", next: "more" },
        more: { type: "ask", text: "Anything else?", slot: { name: "more", type: "boolean" }, next: "decide" },
        decide: { type: "branch", cases: [{ slot: "more", op: "eq", value: true, next: "route" }], default: "bye" },
        route: { type: "route", text: "Sales or support?", routes: [{ keywords: ["sales", "buy"], next: "sales" }, { keywords: ["support", "help"], next: "support" }], default: "bye" },
        sales: { type: "transfer", text: "Connecting you to sales.", number: "+15550001111" },
        support: { type: "end", text: "Support will call you back." },
        bye: { type: "end", text: "Goodbye {{name}}!" },
      },
    };
    const agent = await s.server.api.post("/v1/agents", { name: "Order desk", first_message: "Hello!", brain: { type: "flow", flow } }, { token: token() });
    expect(agent.status).toBe(201);

    const opened = await say(agent.body.id, { variables: { customer: "valued customer" } });
    expect(opened.body.messages.map((m: any) => m.text)).toEqual(["Hello!", "Welcome to Acme, valued customer.", "What is your name?"]);
    const session = opened.body.session_id;
    expect((await say(agent.body.id, { session_id: session, message: "My name is Ada Lovelace" })).body.reply).toBe("What is your order number?");
    expect((await say(agent.body.id, { session_id: session, message: "it's forty two" })).body.reply).toBe("Please say the four digits.");
    const looked = await say(agent.body.id, { session_id: session, message: "four two one seven" });
    expect(looked.body.reply).toBe("Thanks Ada Lovelace, order 4217 is on its way. Anything else?");
    expect(looked.body.tool_calls).toEqual([{ name: tool.body.id, arguments: { order: "4217" }, ok: true, result: "on its way" }]);
    expect((await say(agent.body.id, { session_id: session, message: "yes please" })).body.reply).toBe("Sales or support?");
    const end = await say(agent.body.id, { session_id: session, message: "I'd like to buy more" });
    expect(end.body).toMatchObject({ reply: "Connecting you to sales.", ended: true, action: { type: "transfer", number: "+15550001111" } });
    const after = await say(agent.body.id, { session_id: session, message: "hello?" });
    expect(after.body).toMatchObject({ reply: "", ended: true });
    orders.stop();
  });

  test("keyed digits feed the same slots; end-call phrases end the conversation", async () => {
    const flow = {
      start: "pin",
      nodes: { pin: { type: "ask", text: "Enter your PIN.", slot: { name: "pin", type: "digits", length: 4 }, next: "done" }, done: { type: "say", text: "PIN {{pin}} accepted.", next: "pin" } },
    };
    const agent = await s.server.api.post("/v1/agents", { name: "PIN", brain: { type: "flow", flow } }, { token: token() });
    const opened = await say(agent.body.id, {});
    const keyed = await say(agent.body.id, { session_id: opened.body.session_id, digits: "1234" });
    expect(keyed.body.reply).toBe("PIN 1234 accepted. Enter your PIN.");
    // Recognisers that punctuate write "Goodbye."; the full stop must not hide the end phrase.
    const bye = await say(agent.body.id, { session_id: opened.body.session_id, message: "OK. Goodbye." });
    expect(bye.body).toMatchObject({ ended: true, action: { type: "end" } });
  });

  test("the receptionist template: a caller a misheard question sent to the knowledge step still gets the opening hours", async () => {
    const receptionist = TEMPLATES.find((template) => template.id === "receptionist")!;
    const agent = await s.server.api.post("/v1/agents", { name: "Front desk", ...receptionist.config(undefined) }, { token: token() });
    expect(agent.status).toBe(201);
    const opened = await say(agent.body.id, {});
    const session = opened.body.session_id;
    // The recogniser heard "what are your opening hours" as words no route knows.
    expect((await say(agent.body.id, { session_id: session, message: "what do you use" })).body.reply).toBe("What would you like to know?");
    expect((await say(agent.body.id, { session_id: session, message: "what are your opening hours" })).body.reply).toBe("We are open nine to six, Monday to Friday. Is there anything else?");
    // A question no knowledge base answers and no route names still gets the fallback.
    expect((await say(agent.body.id, { session_id: session, message: "where can I park" })).body.reply).toBe("What would you like to know?");
    expect((await say(agent.body.id, { session_id: session, message: "where can I park" })).body.reply).toBe("I'm sorry, I don't have an answer to that. Is there anything else?");
    expect((await say(agent.body.id, { session_id: session, message: "no thanks" })).body).toMatchObject({ reply: "Thank you for calling. Goodbye!", ended: true });
  });

  test("sessions belong to their agent and workspace", async () => {
    const a = await s.server.api.post("/v1/agents", { name: "A", first_message: "Hi" }, { token: token() });
    const b = await s.server.api.post("/v1/agents", { name: "B", first_message: "Hi" }, { token: token() });
    const opened = await say(a.body.id, {});
    expect((await say(b.body.id, { session_id: opened.body.session_id, message: "hi" })).status).toBe(404);
  });
});

describe("chat with an llm brain (local OpenAI-protocol server)", () => {
  test("streams the answer; runs tool calls (webhook tool and end_call) and feeds the results back", async () => {
    const fake = startFakeOpenAI();
    const weather = startReceiver(() => Response.json({ forecast: "sunny, 24°C" }));
    const provider = await s.server.api.post("/v1/providers", { name: "fake", kind: "openai-compatible", base_url: fake.url }, { token: token() });
    const tool = await s.server.api.post(
      "/v1/tools",
      { name: "get_weather", description: "Weather for a city", url: weather.url, parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      { token: token() },
    );
    const agent = await s.server.api.post(
      "/v1/agents",
      {
        name: "Concierge",
        system_prompt: "You are the concierge of {{hotel}}.",
        first_message: "Good evening!",
        brain: { type: "llm", provider_id: provider.body.id, model: "fake-chat", temperature: 0.2 },
        tools: [{ type: "function", tool_id: tool.body.id }, { type: "end_call" }],
      },
      { token: token() },
    );
    fake.script([
      { toolCalls: [{ name: "get_weather", arguments: { city: "Lisbon" } }] },
      { text: ["It will be ", "sunny and 24 degrees ", "in Lisbon."] },
      { toolCalls: [{ name: "end_call", arguments: { reason: "caller said thanks" } }] },
      { text: ["Goodbye!"] },
    ]);
    const opened = await say(agent.body.id, { variables: { hotel: "Hotel Azul" } });
    expect(opened.body.reply).toBe("Good evening!");
    const answer = await say(agent.body.id, { session_id: opened.body.session_id, message: "What's the weather tomorrow in Lisbon?" });
    expect(answer.body.reply).toBe("It will be sunny and 24 degrees in Lisbon.");
    expect(answer.body.tool_calls).toEqual([{ name: "get_weather", arguments: { city: "Lisbon" }, ok: true, result: { forecast: "sunny, 24°C" } }]);
    const chats = fake.requests.filter((r) => r.path === "/v1/chat/completions");
    expect(chats[0].body).toMatchObject({ model: "fake-chat", stream: true, temperature: 0.2 });
    expect(chats[0].body.messages.slice(0, 3)).toEqual([
      { role: "system", content: "You are the concierge of Hotel Azul." },
      { role: "assistant", content: "Good evening!" },
      { role: "user", content: "What's the weather tomorrow in Lisbon?" },
    ]);
    expect(chats[0].body.tools.map((t: any) => t.function.name)).toEqual(["get_weather", "end_call"]);
    // The second request carries the tool's result back to the model.
    expect(chats[1].body.messages.at(-1)).toEqual({ role: "tool", tool_call_id: "call_0", content: JSON.stringify({ forecast: "sunny, 24°C" }) });
    const ended = await say(agent.body.id, { session_id: opened.body.session_id, message: "Thanks, that's all" });
    expect(ended.body).toMatchObject({ ended: true, action: { type: "end" } });
    weather.stop();
    fake.stop();
  });

  test("a failing model: the agent says its fallback line and reports the error instead of hanging", async () => {
    const fake = startFakeOpenAI();
    fake.script([{ fail: { status: 503, body: "overloaded" } }]);
    const provider = await s.server.api.post("/v1/providers", { name: "flaky", kind: "openai-compatible", base_url: fake.url }, { token: token() });
    const agent = await s.server.api.post(
      "/v1/agents",
      { name: "Flaky", brain: { type: "llm", provider_id: provider.body.id, model: "fake-chat", fallback_message: "Sorry, one moment please." } },
      { token: token() },
    );
    const res = await say(agent.body.id, { message: "Hello?" });
    expect(res.body).toMatchObject({ reply: "Sorry, one moment please.", ended: false });
    expect(res.body.error).toMatch(/HTTP 503: overloaded/);
    fake.stop();
  });
});

describe("expiry", () => {
  test("a conversation is gone a day after its last message, and the sweep deletes its row", async () => {
    const agent = await s.server.api.post("/v1/agents", { name: "Brief", first_message: "Hi." }, { token: token() });
    const opened = await say(agent.body.id, {});
    // A key, not the user's access token: that expires long before a day has passed.
    const key = (await createKey(s.server.api, token(), "write")).secret;
    s.server.clock.advance(24 * 60 * 60 * 1000 + 1);
    const late = await s.server.api.post(`/v1/agents/${agent.body.id}/chat`, { session_id: opened.body.session_id, message: "still there?" }, { token: key });
    expect(late.status).toBe(404);
    const { pruneChatSessions } = await import("../../src/modules/agents/chat.ts");
    expect(pruneChatSessions(s.server.ctx)).toBeGreaterThanOrEqual(1);
  });
});
