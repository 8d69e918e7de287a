// Runs of a flow agent's suite as real test calls: a passing case and one failing for the right reason,
// results with transcript, latency, recording and diff, test_run.completed at a real receiver, and the
// calls kept apart: not billed, not in analytics, not listed, no call webhooks (README "Testing your agents").
import { afterAll, beforeAll, expect, test } from "bun:test";
import { registerOperator, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { prices } from "../helpers/metering.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";
import { startFakeOpenAI } from "../helpers/fake-openai.ts";

let server: TestServer;
let operator: RegisteredUser;
let tenant: RegisteredUser;
let receiver: Receiver;
let agentId: string;
let toolId: string;

beforeAll(async () => {
  // Live calls are charged every second: a test call that were metered would be charged, and cut off by the empty wallet.
  server = await startTestServer({ settings: { settlementSeconds: "1" } });
  receiver = startReceiver();
  operator = await registerOperator(server);
  // Speech is priced: a real call of this tenant (with an empty wallet) would be refused, and one that ran would be charged.
  expect((await server.api.put("/v1/admin/pricing", prices(60_000, 6_000), { token: operator.token })).status).toBe(200);
  tenant = await registerUser(server.api, "suite-owner");
  const token = tenant.token;
  toolId = (await server.api.post("/v1/tools", { name: "lookup_order", description: "Finds the caller's order", url: `${receiver.url}/tool` }, { token })).body.id;
  const flow = {
    start: "name",
    nodes: {
      name: { type: "ask", text: "Your name?", slot: { name: "name", type: "string" }, next: "lookup" },
      lookup: { type: "tool", tool_id: toolId, arguments: { customer: "{{name}}" }, save_as: "status", text: "{{name}}, it is {{status}}.", next: "bye" },
      bye: { type: "end", text: "Bye." },
    },
  };
  const agent = await server.api.post(
    "/v1/agents",
    { name: "Orders", first_message: "Hi.", brain: { type: "flow", flow }, tools: [{ type: "function", tool_id: toolId }], extraction: [{ name: "name", type: "string", description: "The caller's name" }], webhook_url: `${receiver.url}/agent` },
    { token },
  );
  expect(agent.status).toBe(201);
  agentId = agent.body.id;
  const endpoint = await server.api.post("/v1/webhooks", { url: `${receiver.url}/workspace`, events: ["test_run.completed", "call.completed", "call.failed"] }, { token });
  expect(endpoint.status).toBe(201);
});
afterAll(async () => {
  await server.stop();
  receiver.stop();
});

const orderCase = (name: string, customer: string, says = "Ada") => ({
  name,
  caller: { type: "script", turns: [{ say: says }] },
  tool_mocks: [{ tool: "lookup_order", result: "shipped" }],
  expectations: [
    { type: "agent_says", turn: 0, contains: "your name" },
    { type: "tool_called", tool: "lookup_order", arguments: { customer } },
    { type: "agent_says", contains: "it is shipped" },
    { type: "extracted", field: "name", equals: says },
    { type: "ended", status: "completed", end_reason: "agent_hangup" },
    { type: "max_turns", turns: 3 },
  ],
});

async function finished(runId: string, agent = agentId) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await Bun.sleep(100)) {
    const run = (await server.api.get(`/v1/agents/${agent}/test-runs/${runId}`, { token: tenant.token })).body;
    if (!["queued", "running"].includes(run.status)) {
      server.clock.advance(1000); // the next run's results come after these (the test clock stands still otherwise)
      return run;
    }
  }
  throw new Error(`run ${runId} did not finish`);
}

test("a suite runs as real test calls: one case passes, one fails on the argument it expected, with why, transcript, latency, recording and diff", async () => {
  const { api } = server;
  const token = tenant.token;
  for (const body of [orderCase("order status", "Ada"), orderCase("wrong customer", "Bob")]) {
    server.clock.advance(1); // a suite runs in the order its cases were made (the test clock stands still otherwise)
    expect((await api.post(`/v1/agents/${agentId}/tests`, body, { token })).status).toBe(201);
  }
  const created = await api.post(`/v1/agents/${agentId}/test-runs`, {}, { token });
  expect(created.status).toBe(202);
  const run = await finished(created.body.id);
  expect(run).toMatchObject({ status: "failed", progress: { total: 2, completed: 2, passed: 1, failed: 1, errored: 0, running: 0, queued: 0 } });
  expect(run.duration_ms).toBeGreaterThanOrEqual(0);
  const [passed, failed] = run.results;
  expect(passed).toMatchObject({ name: "order status", status: "passed", failures: [], error: null, diff: null });
  expect(passed.checks).toHaveLength(6);
  expect(passed.transcript.map((turn: any) => [turn.role, turn.text])).toEqual([
    ["agent", "Hi. Your name?"],
    ["caller", "Ada"],
    ["agent", "Ada, it is shipped. Bye."],
  ]);
  expect(passed.latencies.length).toBeGreaterThan(0);
  expect(passed.latencies[0].perceived_ms).toBeGreaterThanOrEqual(0);
  expect(failed.status).toBe("failed");
  expect(failed.failures).toHaveLength(1);
  expect(failed.failures[0]).toMatchObject({ index: 1, passed: false, expectation: { type: "tool_called", arguments: { customer: "Bob" } } });
  expect(failed.failures[0].detail).toContain("Ada");
  // The mock answered: the tool's URL was never called.
  expect(receiver.requests.filter((r) => r.path.endsWith("/tool"))).toHaveLength(0);

  // The recording of the test call, like any call's.
  expect(passed.recording_url).toBe(`/v1/calls/${passed.call_id}/recording`);
  let recording: Response | undefined;
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await Bun.sleep(100)) {
    recording = await fetch(`${server.url}${passed.recording_url}`, { headers: { authorization: `Bearer ${token}` } });
    if (recording.status === 200) break;
  }
  expect(recording!.status).toBe(200);
  expect(recording!.headers.get("content-type")).toBe("audio/wav");
  const call = (await api.get(`/v1/calls/${passed.call_id}`, { token })).body;
  expect(call).toMatchObject({ test_run_id: run.id, carrier: "test", direction: "inbound", from: "+15550100000", status: "completed", cost: { total: 0 } });

  // A case made from a past call: its caller's words as a script, expecting the same ending.
  server.clock.advance(1);
  const fromCall = await api.post(`/v1/agents/${agentId}/tests/from-call`, { call_id: failed.call_id }, { token });
  expect(fromCall.status).toBe(201);
  expect(fromCall.body).toMatchObject({
    name: `From call ${failed.call_id}`,
    caller: { type: "script", turns: [{ say: "Ada" }] },
    expectations: [{ type: "agent_says", turn: 1, contains: "Ada, it is shipped. Bye" }, { type: "ended", status: "completed" }],
  });
  await api.patch(`/v1/agents/${agentId}/tests/${failed.test_id}`, orderCase("wrong customer", "Bob", "Bob"), { token });
  // The case from the call mocks no tool: its call reaches the tool's URL for real, which answers as the mock did.
  receiver.respondWith((request) => (request.path.endsWith("/tool") ? Response.json("shipped") : new Response("ok")));

  // Run again: the changed case's diff shows the turns that changed; the unchanged one's, none; the new one has no previous result.
  const again = (await api.post(`/v1/agents/${agentId}/test-runs`, {}, { token })).body;
  const second = await finished(again.id);
  expect(second.status).toBe("passed");
  expect(second.results.map((r: any) => r.name)).toEqual(["order status", "wrong customer", `From call ${failed.call_id}`]);
  expect(second.results[0].diff).toEqual({ previous_run_id: run.id, previous_status: "passed", status_changed: false, turns: [] });
  expect(second.results[1].diff).toEqual({
    previous_run_id: run.id,
    previous_status: "failed",
    status_changed: true,
    turns: [
      { index: 1, role: "caller", before: "Ada", after: "Bob" },
      { index: 2, role: "agent", before: "Ada, it is shipped. Bye.", after: "Bob, it is shipped. Bye." },
    ],
  });
  expect(second.results[2].diff).toBeNull();
  expect(receiver.requests.filter((r) => r.path.endsWith("/tool"))).toHaveLength(1);
  const listed = await api.get(`/v1/agents/${agentId}/test-runs`, { token });
  expect(listed.body.data.map((r: any) => [r.id, r.status])).toEqual([[again.id, "passed"], [run.id, "failed"]]);

  // test_run.completed reached the subscribed endpoint for each run; no call event went anywhere.
  const delivered = await receiver.waitFor(2, 10_000);
  const events = delivered.filter((r) => r.path.endsWith("/workspace")).map((r) => JSON.parse(r.body));
  expect(events.map((e) => [e.event, e.data.run_id, e.data.status]).sort()).toEqual([["test_run.completed", again.id, "passed"], ["test_run.completed", run.id, "failed"]].sort());
  expect(events.find((e) => e.data.run_id === run.id).data).toMatchObject({ agent_id: agentId, agent_version: 1, total: 2, passed: 1, failed: 1, errored: 0, canceled: 0 });
  const log = (await api.get("/v1/webhooks/events?limit=100", { token })).body.data;
  expect(log.map((e: any) => e.type)).toEqual(["test_run.completed", "test_run.completed"]);
  expect(receiver.requests.filter((r) => r.path.endsWith("/agent"))).toHaveLength(0);

  // Kept apart: not billed (the empty wallet stays empty, no ledger entry), not in analytics, usage or the default call list.
  expect((await api.post("/v1/calls/outbound", { agent_id: agentId, to: "+15550109999" }, { token })).status).toBeGreaterThanOrEqual(400); // a real call cannot even start
  const wallet = (await api.get("/v1/wallet", { token })).body;
  expect(wallet.balance).toBe(0);
  const usage = (await api.get(`/v1/wallet/usage?to=${new Date(server.clock.now() + 60_000).toISOString()}`, { token })).body;
  expect(usage.total).toBe(0);
  const analytics = (await api.get(`/v1/analytics/calls?to=${new Date(server.clock.now() + 60_000).toISOString()}`, { token })).body;
  expect(analytics.totals.calls).toBe(0);
  const tenants = (await api.get("/v1/admin/workspaces?limit=100", { token: operator.token })).body.data;
  expect(tenants.find((t: any) => t.id === tenant.workspaceId).usage_30d).toMatchObject({ calls: 0, spend: 0 });
  expect((await api.get("/v1/calls", { token })).body.data).toEqual([]);
  const all = (await api.get("/v1/calls?include_tests=true&limit=100", { token })).body.data;
  expect(all).toHaveLength(5);
  const ofRun = (await api.get(`/v1/calls?test_run_id=${run.id}`, { token })).body.data;
  expect(ofRun.map((c: any) => c.id).sort()).toEqual([passed.call_id, failed.call_id].sort());
}, 60_000);

test("an LLM agent's suite passes, then a changed prompt breaks what it says and a slow model breaks the latency bound", async () => {
  const { api } = server;
  const token = tenant.token;
  // The local OpenAI-protocol model answers from its system prompt: the hours it names, slowly when told to.
  const model = startFakeOpenAI();
  model.script((body) => {
    const prompt: string = body.messages[0].content;
    const heard: string = body.messages.at(-1).content ?? "";
    if (!heard.toLowerCase().includes("open")) return { text: ["Goodbye."], toolCalls: [{ name: "end_call", arguments: { reason: "done" } }] };
    return { text: [`We open at ${prompt.includes("ten") ? "ten" : "nine"}.`], delayMs: prompt.includes("slowly") ? 4000 : 0 };
  });
  try {
    const provider = (await api.post("/v1/providers", { name: "hours model", kind: "openai-compatible", base_url: model.url }, { token })).body.id;
    const agent = await api.post(
      "/v1/agents",
      { name: "Hours", first_message: "Hello, Acme here.", system_prompt: "We open at nine.", brain: { type: "llm", provider_id: provider, model: "fake-chat" }, tools: [{ type: "end_call" }] },
      { token },
    );
    expect(agent.status).toBe(201);
    const hours = agent.body.id;
    const suite = {
      name: "opening hours",
      caller: { type: "script", turns: [{ say: "When do you open?" }, { say: "Thanks, bye" }] },
      expectations: [
        { type: "agent_says", turn: 1, contains: "nine" },
        { type: "latency", max_ms: 2500 },
        { type: "ended", status: "completed", end_reason: "agent_hangup" },
      ],
    };
    expect((await api.post(`/v1/agents/${hours}/tests`, suite, { token })).status).toBe(201);
    const first = await finished((await api.post(`/v1/agents/${hours}/test-runs`, {}, { token })).body.id, hours);
    expect(first.results[0].failures).toEqual([]);
    expect(first.status).toBe("passed");

    expect((await api.patch(`/v1/agents/${hours}`, { system_prompt: "We open at ten. Answer slowly." }, { token })).status).toBe(200);
    const second = await finished((await api.post(`/v1/agents/${hours}/test-runs`, {}, { token })).body.id, hours);
    expect(second).toMatchObject({ status: "failed", agent_version: 2 });
    const [result] = second.results;
    expect(result.failures.map((check: any) => check.index)).toEqual([0, 1]);
    expect(result.failures[0].detail).toBe('agent turn 1 said "We open at ten."; expected it to contain "nine"');
    expect(result.failures[1].detail).toMatch(/^the caller waited [0-9]+ ms at agent turn 1; expected at most 2500 ms for any reply$/);
    expect(result.latencies.find((l: any) => l.turn === 1).perceived_ms).toBeGreaterThan(2500);
    expect(result.diff.turns).toContainEqual({ index: 2, role: "agent", before: "We open at nine.", after: "We open at ten." });
  } finally {
    model.stop();
  }
}, 60_000);
