// Agent test cases and runs through the API: CRUD, validation naming each field, tenant isolation on
// every route, suite files, and a 1,000-case run accepted and queued (README "Testing your agents").
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encodeWav } from "../../src/voice/media/wav-format.ts";
import { createKey, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let a: RegisteredUser;
let bKey: string;
let agentId: string;
let otherAgentId: string;
let toolId: string;
let providerId: string;
let speechProviderId: string;

const TINY_FLOW = { start: "bye", nodes: { bye: { type: "end", text: "Goodbye." } } };
const script = (...say: string[]) => ({ type: "script", turns: say.map((line) => ({ say: line })) });
const basic = (name: string, extra: Record<string, unknown> = {}) => ({ name, caller: script("Hello"), expectations: [{ type: "agent_says", contains: "goodbye" }], ...extra });

beforeAll(async () => {
  server = await startTestServer();
  a = await registerUser(server.api, "tests-a");
  const b = await registerUser(server.api, "tests-b");
  bKey = (await createKey(server.api, b.token, "admin")).secret;
  const tool = await server.api.post("/v1/tools", { name: "lookup_order", description: "Finds an order", url: "https://tools.example.com/order" }, { token: a.token });
  toolId = tool.body.id;
  const provider = await server.api.post("/v1/providers", { name: "Judge", kind: "openai-compatible", base_url: "https://models.example.com/v1" }, { token: a.token });
  providerId = provider.body.id;
  const speech = await server.api.post("/v1/providers", { name: "Speech", kind: "deepgram", api_key: "dg-key" }, { token: a.token });
  expect(speech.status).toBe(201);
  speechProviderId = speech.body.id;
  const agent = await server.api.post(
    "/v1/agents",
    { name: "Tested", first_message: "Hello.", brain: { type: "flow", flow: TINY_FLOW }, tools: [{ type: "function", tool_id: toolId }], extraction: [{ name: "order_id", type: "string", description: "The order" }] },
    { token: a.token },
  );
  expect(agent.status).toBe(201);
  agentId = agent.body.id;
  otherAgentId = (await server.api.post("/v1/agents", { name: "Other", brain: { type: "flow", flow: TINY_FLOW } }, { token: a.token })).body.id;
});
afterAll(() => server.stop());

describe("test cases", () => {
  test("create fills the defaults; get, list, patch (fields replaced whole) and delete", async () => {
    const created = await server.api.post(`/v1/agents/${agentId}/tests`, basic("greets", { variables: { plan: "gold" } }), { token: a.token });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: "agent_test",
      agent_id: agentId,
      name: "greets",
      description: null,
      channel: "phone",
      from: "+15550100000",
      variables: { plan: "gold" },
      tool_mocks: [],
      timeout_seconds: 120,
      caller: { type: "script", turns: [{ say: "Hello" }] },
    });
    expect(created.body.id).toMatch(/^atest_/);
    const id = created.body.id;
    expect((await server.api.get(`/v1/agents/${agentId}/tests/${id}`, { token: a.token })).body.name).toBe("greets");
    const list = await server.api.get(`/v1/agents/${agentId}/tests?limit=100`, { token: a.token });
    expect(list.body.data.map((t: any) => t.id)).toContain(id);
    const patched = await server.api.patch(`/v1/agents/${agentId}/tests/${id}`, { expectations: [{ type: "ended", status: "completed" }], channel: "web" }, { token: a.token });
    expect(patched.status).toBe(200);
    expect(patched.body.expectations).toEqual([{ type: "ended", status: "completed" }]);
    expect(patched.body).toMatchObject({ channel: "web", variables: { plan: "gold" }, name: "greets" });
    const taken = await server.api.post(`/v1/agents/${agentId}/tests`, basic("greets"), { token: a.token });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: "name_taken", errors: [{ field: "name" }] });
    // The same name under another agent is another case.
    expect((await server.api.post(`/v1/agents/${otherAgentId}/tests`, basic("greets"), { token: a.token })).status).toBe(201);
    expect((await server.api.delete(`/v1/agents/${agentId}/tests/${id}`, { token: a.token })).status).toBe(204);
    expect((await server.api.get(`/v1/agents/${agentId}/tests/${id}`, { token: a.token })).status).toBe(404);
  });

  const wav = (channels: number, sampleRate = 16000) => Buffer.from(encodeWav(new Int16Array(1600 * channels), { sampleRate, channels })).toString("base64");
  const cases: [string, () => Record<string, unknown>, string][] = [
    ["a case with no caller", () => ({ name: "x", expectations: [] }), "caller"],
    ["a turn with two actions", () => ({ name: "x", caller: { type: "script", turns: [{ say: "hi" }, { say: "a", dtmf: "1" }] }, expectations: [] }), "caller.turns[1]"],
    ["a turn with no action", () => ({ name: "x", caller: { type: "script", turns: [{ say: "hi" }, { say: "hi" }, { voice: "kal16" }] }, expectations: [] }), "caller.turns[2]"],
    ["audio that is not a WAV", () => ({ name: "x", caller: { type: "script", turns: [{ say: "hi" }, { audio: Buffer.from("not a wav file at all").toString("base64") }] }, expectations: [] }), "caller.turns[1].audio"],
    ["a WAV at 4 kHz", () => ({ name: "x", caller: { type: "script", turns: [{ audio: wav(1, 4000) }] }, expectations: [] }), "caller.turns[0].audio"],
    ["a rubric with no judge", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "agent_says", rubric: "polite" }] }), "expectations[0].judge_provider_id"],
    ["a judge that is no connection", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "agent_says", rubric: "polite", judge_provider_id: "prv_nope" }] }), "expectations[0].judge_provider_id"],
    ["a judge without a language model", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "agent_says", rubric: "polite", judge_provider_id: speechProviderId }] }), "expectations[0].judge_provider_id"],
    ["agent_says with two conditions", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "agent_says", contains: "a", regex: "b" }] }), "expectations[0]"],
    ["agent_says with none", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "ended", status: "completed" }, { type: "agent_says" }] }), "expectations[1]"],
    ["a regex that does not compile", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "ended", status: "completed" }, { type: "max_turns", turns: 3 }, { type: "agent_says", regex: "(unclosed" }] }), "expectations[2].regex"],
    ["tool_called naming no tool of the agent", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "tool_called", tool: "refund" }] }), "expectations[0].tool"],
    ["a mock of no tool of the agent", () => ({ name: "x", caller: script("hi"), tool_mocks: [{ tool: "tool_nope", result: {} }], expectations: [] }), "tool_mocks[0].tool"],
    ["extracted naming no field of the agent", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "extracted", field: "email", equals: "a" }] }), "expectations[0].field"],
    ["goal_reached with a script caller", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "goal_reached" }] }), "expectations[0]"],
    ["a model caller on an unknown connection", () => ({ name: "x", caller: { type: "model", provider_id: "prv_nope", persona: "A customer", goal: "Order status" }, expectations: [] }), "caller.provider_id"],
    ["ended with neither field", () => ({ name: "x", caller: script("hi"), expectations: [{ type: "ended" }] }), "expectations[0]"],
  ];
  for (const [what, body, field] of cases) {
    test(`refused, naming ${field}: ${what}`, async () => {
      const res = await server.api.post(`/v1/agents/${agentId}/tests`, body(), { token: a.token });
      expect(res.status).toBe(422);
      expect(res.headers.get("content-type")).toContain("application/problem+json");
      expect(res.body.errors.map((e: any) => e.field)).toContain(field);
    });
  }

  test("valid references pass: the tool by name and by id, the extraction field, a stereo WAV (its first channel is played), a judged rubric, a model caller", async () => {
    const res = await server.api.post(
      `/v1/agents/${agentId}/tests`,
      {
        name: "references",
        caller: { type: "script", turns: [{ audio: wav(2) }, { pause_ms: 100 }, { dtmf: "12#" }, { silence_ms: 500 }, { say: "bye", barge_in: true }, { hangup: true }] },
        tool_mocks: [{ tool: "lookup_order", result: { status: "shipped" } }],
        expectations: [
          { type: "tool_called", tool: toolId, arguments: { order_id: "42" } },
          { type: "tool_called", tool: "end_call", not: true },
          { type: "extracted", field: "order_id", equals: "42" },
          { type: "agent_says", rubric: "Polite", judge_provider_id: providerId },
        ],
      },
      { token: a.token },
    );
    expect(res.status).toBe(201);
    const model = await server.api.post(
      `/v1/agents/${agentId}/tests`,
      { name: "model caller", caller: { type: "model", provider_id: providerId, persona: "A customer", goal: "Hear goodbye" }, expectations: [{ type: "goal_reached" }] },
      { token: a.token },
    );
    expect(model.status).toBe(201);
  });
});

describe("suite files", () => {
  test("export then import into another agent round-trips; a second import updates by name in one go", async () => {
    const source = (await server.api.post("/v1/agents", { name: "Suite source", brain: { type: "flow", flow: TINY_FLOW } }, { token: a.token })).body.id;
    const target = (await server.api.post("/v1/agents", { name: "Suite target", brain: { type: "flow", flow: TINY_FLOW } }, { token: a.token })).body.id;
    for (const name of ["one", "two", "three"]) {
      server.clock.advance(1); // cases are kept in the order they were made (the test clock stands still otherwise)
      expect((await server.api.post(`/v1/agents/${source}/tests`, basic(name), { token: a.token })).status).toBe(201);
    }
    const suite = await server.api.get(`/v1/agents/${source}/tests/export`, { token: a.token });
    expect(suite.body).toMatchObject({ object: "test_suite", version: 1, agent_id: source });
    expect(suite.body.tests.map((t: any) => t.name)).toEqual(["one", "two", "three"]);
    const imported = await server.api.post(`/v1/agents/${target}/tests/import`, suite.body, { token: a.token });
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({ object: "test_suite_import", created: 3, updated: 0 });
    const back = await server.api.get(`/v1/agents/${target}/tests/export`, { token: a.token });
    expect(back.body.tests).toEqual(suite.body.tests);

    server.clock.advance(10);
    const changed = { ...suite.body, tests: [{ ...suite.body.tests[1], description: "changed" }, basic("four")] };
    expect((await server.api.post(`/v1/agents/${target}/tests/import`, changed, { token: a.token })).body).toEqual({ object: "test_suite_import", created: 1, updated: 1 });
    const after = await server.api.get(`/v1/agents/${target}/tests/export`, { token: a.token });
    expect(after.body.tests.map((t: any) => [t.name, t.description])).toEqual([["one", null], ["two", "changed"], ["three", null], ["four", null]]);

    // One bad case refuses the whole suite, naming it; nothing is written.
    const bad = { tests: [basic("five"), basic("six"), basic("seven"), { ...basic("eight"), caller: { type: "script", turns: [{ say: "a", hangup: true }] } }] };
    const refused = await server.api.post(`/v1/agents/${target}/tests/import`, bad, { token: a.token });
    expect(refused.status).toBe(422);
    expect(refused.body.errors.map((e: any) => e.field)).toEqual(["tests[3].caller.turns[0]"]);
    const twice = await server.api.post(`/v1/agents/${target}/tests/import`, { tests: [basic("nine"), basic("nine")] }, { token: a.token });
    expect(twice.body.errors.map((e: any) => e.field)).toEqual(["tests[1].name"]);
    expect((await server.api.get(`/v1/agents/${target}/tests/export`, { token: a.token })).body.tests).toHaveLength(4);
  });
});

describe("runs", () => {
  test("1,000 cases are accepted and queued, worked through `concurrency` at a time; canceling stops the rest", async () => {
    const agent = (await server.api.post("/v1/agents", { name: "Thousand", brain: { type: "flow", flow: TINY_FLOW } }, { token: a.token })).body.id;
    const tests = Array.from({ length: 1000 }, (_, i) => ({ name: `case ${i}`, caller: { type: "script", turns: [{ hangup: true }] }, expectations: [] }));
    expect((await server.api.post(`/v1/agents/${agent}/tests/import`, { tests }, { token: a.token })).body).toMatchObject({ created: 1000 });
    const run = await server.api.post(`/v1/agents/${agent}/test-runs`, { concurrency: 2 }, { token: a.token });
    expect(run.status).toBe(202);
    expect(run.body).toMatchObject({ object: "test_run", status: "queued", agent_version: 1, concurrency: 2, progress: { total: 1000, completed: 0, queued: 1000, running: 0 } });
    expect(run.body.id).toMatch(/^trun_/);
    // It starts: at most 2 cases at once, the rest queued.
    let seen: any;
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await Bun.sleep(50)) {
      seen = (await server.api.get(`/v1/agents/${agent}/test-runs/${run.body.id}`, { token: a.token })).body;
      if (seen.status === "running" && seen.progress.running + seen.progress.completed > 0) break;
    }
    expect(seen.status).toBe("running");
    expect(seen.progress.running).toBeLessThanOrEqual(2);
    expect(seen.progress.queued).toBeGreaterThan(900);
    expect(seen.results).toHaveLength(1000);
    const canceled = await server.api.post(`/v1/agents/${agent}/test-runs/${run.body.id}/cancel`, undefined, { token: a.token });
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe("canceled");
    expect(canceled.body.progress.queued).toBe(0);
    expect(canceled.body.results.filter((r: any) => r.status === "canceled").length).toBeGreaterThan(900);
    // Its live cases end canceled too; a second cancel is refused.
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(100)) {
      seen = (await server.api.get(`/v1/agents/${agent}/test-runs/${run.body.id}`, { token: a.token })).body;
      if (seen.progress.running === 0) break;
    }
    expect(seen.progress.running).toBe(0);
    expect(seen.progress.completed).toBe(1000);
    expect((await server.api.post(`/v1/agents/${agent}/test-runs/${run.body.id}/cancel`, undefined, { token: a.token })).body.code).toBe("invalid_state");
    const listed = await server.api.get(`/v1/agents/${agent}/test-runs`, { token: a.token });
    expect(listed.body.data.map((r: any) => r.id)).toEqual([run.body.id]);
  }, 60_000);

  test("more than 1,000 cases in one run is refused naming the field; so are unknown cases and versions", async () => {
    const inline = Array.from({ length: 1001 }, (_, i) => ({ name: `c${i}`, caller: { type: "script", turns: [{ hangup: true }] }, expectations: [] }));
    const tooMany = await server.api.post(`/v1/agents/${agentId}/test-runs`, { cases: inline }, { token: a.token });
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors.map((e: any) => e.field)).toContain("cases");
    const ids = Array.from({ length: 1001 }, (_, i) => `atest_${i}`);
    const tooManyIds = await server.api.post(`/v1/agents/${agentId}/test-runs`, { test_ids: ids }, { token: a.token });
    expect(tooManyIds.status).toBe(422);
    expect(tooManyIds.body.errors.map((e: any) => e.field)).toContain("test_ids");
    const unknown = await server.api.post(`/v1/agents/${agentId}/test-runs`, { test_ids: ["atest_nope"] }, { token: a.token });
    expect(unknown.body.errors.map((e: any) => e.field)).toEqual(["test_ids[0]"]);
    const version = await server.api.post(`/v1/agents/${agentId}/test-runs`, { version: 99 }, { token: a.token });
    expect(version.body.errors.map((e: any) => e.field)).toEqual(["version"]);
    const badInline = await server.api.post(`/v1/agents/${agentId}/test-runs`, { cases: [basic("ok"), { ...basic("bad"), expectations: [{ type: "ended" }] }] }, { token: a.token });
    expect(badInline.body.errors.map((e: any) => e.field)).toEqual(["cases[1].expectations[0]"]);
    const empty = (await server.api.post("/v1/agents", { name: "Empty", brain: { type: "flow", flow: TINY_FLOW } }, { token: a.token })).body.id;
    const none = await server.api.post(`/v1/agents/${empty}/test-runs`, {}, { token: a.token });
    expect(none.body.errors.map((e: any) => e.field)).toEqual(["test_ids"]);
  });
});

describe("tenant isolation", () => {
  test("another workspace's key gets 404 on every route of an agent's tests and runs", async () => {
    const testCase = (await server.api.post(`/v1/agents/${agentId}/tests`, basic("isolated"), { token: a.token })).body;
    const run = (await server.api.post(`/v1/agents/${agentId}/test-runs`, { test_ids: [testCase.id] }, { token: a.token })).body;
    const routes: [string, string, unknown?][] = [
      ["POST", `/v1/agents/${agentId}/tests`, basic("by b")],
      ["GET", `/v1/agents/${agentId}/tests`],
      ["GET", `/v1/agents/${agentId}/tests/${testCase.id}`],
      ["PATCH", `/v1/agents/${agentId}/tests/${testCase.id}`, { description: "b" }],
      ["DELETE", `/v1/agents/${agentId}/tests/${testCase.id}`],
      ["POST", `/v1/agents/${agentId}/tests/from-call`, { call_id: "call_x" }],
      ["GET", `/v1/agents/${agentId}/tests/export`],
      ["POST", `/v1/agents/${agentId}/tests/import`, { tests: [basic("by b")] }],
      ["POST", `/v1/agents/${agentId}/test-runs`, {}],
      ["GET", `/v1/agents/${agentId}/test-runs`],
      ["GET", `/v1/agents/${agentId}/test-runs/${run.id}`],
      ["POST", `/v1/agents/${agentId}/test-runs/${run.id}/cancel`],
      ["POST", `/v1/agents/${agentId}/versions`, { note: "by b" }],
      ["POST", `/v1/agents/${agentId}/versions/1/publish`, {}],
    ];
    for (const [method, path, body] of routes) {
      const res = await server.api.request(method, path, body, { token: bKey });
      expect(`${method} ${path} ${res.status} ${res.body?.code}`).toBe(`${method} ${path} 404 not_found`);
      expect(res.text).not.toContain(testCase.id);
    }
    // A's case and run are unchanged: the run goes on to its verdict.
    expect((await server.api.get(`/v1/agents/${agentId}/tests/${testCase.id}`, { token: a.token })).body.description).toBeNull();
    let status = "queued";
    for (const deadline = Date.now() + 20_000; ["queued", "running"].includes(status) && Date.now() < deadline; await Bun.sleep(100)) {
      status = (await server.api.get(`/v1/agents/${agentId}/test-runs/${run.id}`, { token: a.token })).body.status;
    }
    expect(status).toBe("passed");
    expect((await server.api.get(`/v1/agents/${agentId}/tests/export`, { token: a.token })).body.tests.map((t: any) => t.name)).not.toContain("by b");
  }, 30_000);
});
