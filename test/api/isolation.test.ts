// Tenant isolation: workspace B's credentials never see or touch workspace A's objects.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { publishWorkspaceEvent } from "../../src/webhooks/outbox.ts";
import { SESSION_ENDING, servedOperations } from "../helpers/contract.ts";
import { addMember, createKey, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let a: RegisteredUser;
let b: RegisteredUser;
let bKey: string;
/** A real object of workspace A for every path template with an id in it. */
const objectOfA: Record<string, string> = {};
/** Values for path parameters other than `{id}` (a version number, a source of A's knowledge base). */
const paramOfA: Record<string, string> = {};
const idsOfA: string[] = [];
let testRunOfA = "";

/**
 * Paths whose parameter is not a workspace object id, with the reason they are outside this matrix
 * (each is covered by its own test).
 */
const NOT_WORKSPACE_OBJECTS: Record<string, string> = {
  "/v1/workspaces/invitations/{token}/accept": "a one-time token addressed to an e-mail; members.test.ts checks a different user gets 403",
  "/v1/admin/workspaces/{id}/credit": "the operator's console names tenants by design; a tenant gets 403 (scope-matrix.test.ts, wallet.test.ts)",
  "/v1/admin/workspaces/{id}/suspend": "the operator's console names tenants by design; a tenant gets 403 (scope-matrix.test.ts, operator.test.ts)",
  "/v1/admin/workspaces/{id}/resume": "the operator's console names tenants by design; a tenant gets 403 (scope-matrix.test.ts, operator.test.ts)",
  "/v1/payments/webhook/{provider}": "a payment provider's signed callback, not a workspace object; payments.test.ts checks forged and foreign events change nothing",
};

beforeAll(async () => {
  server = await startTestServer();
  a = await registerUser(server.api, "tenant-a");
  b = await registerUser(server.api, "tenant-b");
  const aKey = await createKey(server.api, a.token, "admin");
  bKey = (await createKey(server.api, b.token, "admin")).secret;
  const member = await addMember(server.api, a, "member", "a-member");
  await server.api.get("/v1/workspaces/current", { token: aKey.secret }); // leaves an audit row
  const audit = await server.api.get("/v1/audit-log", { token: a.token });
  const session = await server.api.get("/v1/auth/sessions", { token: a.token });
  const endpoint = await server.api.post("/v1/webhooks", { url: "https://hooks.example.com/a", events: ["call.completed"] }, { token: aKey.secret });
  const published = publishWorkspaceEvent(server.ctx, { workspaceId: a.workspaceId, type: "call.completed", data: {} });
  for (const path of ["/v1/webhooks/{id}", "/v1/webhooks/{id}/rotate-secret", "/v1/webhooks/{id}/test"]) objectOfA[path] = endpoint.body.id;
  objectOfA["/v1/webhooks/events/{id}"] = published.eventId;
  objectOfA["/v1/webhooks/failed/{id}/replay"] = published.deliveryIds[0];
  idsOfA.push(endpoint.body.id, published.eventId, published.deliveryIds[0]);
  const tool = await server.api.post("/v1/tools", { name: "a_tool", description: "A's tool", url: "https://tools.example.com/a" }, { token: aKey.secret });
  const agent = await server.api.post("/v1/agents", { name: "A's agent", tools: [{ type: "function", tool_id: tool.body.id }] }, { token: aKey.secret });
  const kb = await server.api.post("/v1/knowledge-base", { name: "A's knowledge" }, { token: aKey.secret });
  const source = await server.api.post(`/v1/knowledge-base/${kb.body.id}/sources`, { type: "text", name: "A's notes", text: "Secret notes of tenant A." }, { token: aKey.secret });
  const provider = await server.api.post("/v1/providers", { name: "A's model", kind: "openai-compatible", base_url: "https://models.example.com/v1" }, { token: aKey.secret });
  for (const suffix of ["", "/test-function", "/duplicate", "/versions", "/versions/{version}/restore", "/versions/{version}/publish", "/webhook/rotate-secret", "/webhook/test", "/chat"]) objectOfA[`/v1/agents/{id}${suffix}`] = agent.body.id;
  // A's test case and a run of it (a flow agent that says goodbye at once: the run is over in a second).
  const tested = await server.api.post("/v1/agents", { name: "A's tested agent", brain: { type: "flow", flow: { start: "bye", nodes: { bye: { type: "end", text: "Bye." } } } } }, { token: aKey.secret });
  const testCase = await server.api.post(`/v1/agents/${tested.body.id}/tests`, { name: "A's case", caller: { type: "script", turns: [{ hangup: true }] }, expectations: [] }, { token: aKey.secret });
  expect(testCase.status).toBe(201);
  const testRun = await server.api.post(`/v1/agents/${tested.body.id}/test-runs`, {}, { token: aKey.secret });
  expect(testRun.status).toBe(202);
  for (const suffix of ["/tests", "/tests/{test_id}", "/tests/from-call", "/tests/export", "/tests/import", "/test-runs", "/test-runs/{run_id}", "/test-runs/{run_id}/cancel"]) objectOfA[`/v1/agents/{id}${suffix}`] = tested.body.id;
  paramOfA.test_id = testCase.body.id;
  paramOfA.run_id = testRun.body.id;
  testRunOfA = `/v1/agents/${tested.body.id}/test-runs/${testRun.body.id}`;
  idsOfA.push(tested.body.id, testCase.body.id, testRun.body.id);
  for (const suffix of ["", "/sources", "/sources/{src}", "/sources/{src}/reindex", "/query"]) objectOfA[`/v1/knowledge-base/{id}${suffix}`] = kb.body.id;
  objectOfA["/v1/tools/{id}"] = tool.body.id;
  objectOfA["/v1/providers/{id}"] = provider.body.id;
  objectOfA["/v1/providers/{id}/check"] = provider.body.id;
  const carrier = await server.api.post("/v1/telephony/carriers", { name: "A's lab carrier", kind: "simulated" }, { token: aKey.secret });
  expect(carrier.status).toBe(201);
  objectOfA["/v1/telephony/carriers/{id}"] = carrier.body.id;
  idsOfA.push(carrier.body.id);
  const number = await server.api.post("/v1/phone-numbers/buy", { area_code: "303", label: "A's line" }, { token: aKey.secret });
  await server.api.post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: agent.body.id }, { token: aKey.secret });
  // 555-0101 is the simulated carrier's busy destination: the call ends on its own within a second.
  const call = await server.api.post("/v1/calls/outbound", { agent_id: agent.body.id, to: "+13035550101", metadata: { owner: "A" } }, { token: aKey.secret });
  for (const suffix of ["", "/recording", "/recording.mp3", "/transcript", "/events", "/hangup", "/transfer", "/say"]) objectOfA[`/v1/calls/{id}${suffix}`] = call.body.id;
  for (const suffix of ["", "/assign", "/unassign"]) objectOfA[`/v1/phone-numbers/{id}${suffix}`] = number.body.id;
  idsOfA.push(number.body.id, call.body.id);
  const campaign = await server.api.post("/v1/campaigns", { name: "A's campaign", agent_id: agent.body.id }, { token: aKey.secret });
  const upload = await fetch(`${server.url}/v1/campaigns/${campaign.body.id}/upload`, { method: "POST", headers: { authorization: `Bearer ${aKey.secret}`, "content-type": "text/csv" }, body: "phone,name\n+13035550150,A's contact\n" });
  expect(upload.status).toBe(201);
  for (const suffix of ["", "/upload", "/contacts", "/start", "/pause", "/cancel", "/results", "/stats"]) objectOfA[`/v1/campaigns/{id}${suffix}`] = campaign.body.id;
  const schedule = await server.api.post("/v1/schedules", { agent_id: agent.body.id, to: "+13035550150", at: new Date(Date.now() + 86_400_000).toISOString() }, { token: aKey.secret });
  expect(schedule.status).toBe(201);
  objectOfA["/v1/schedules/{id}"] = schedule.body.id;
  idsOfA.push(campaign.body.id, schedule.body.id);
  const widget = await server.api.post("/v1/widgets", { agent_id: agent.body.id, name: "A's widget", allowed_origins: ["https://a.example.com"] }, { token: aKey.secret });
  expect(widget.status).toBe(201);
  objectOfA["/v1/widgets/{id}"] = widget.body.id;
  idsOfA.push(widget.body.id);
  const payment = await server.api.post("/v1/payments/topup", { amount: 2500, provider: "offline" }, { token: aKey.secret });
  expect(payment.status).toBe(201);
  objectOfA["/v1/payments/{id}"] = payment.body.id;
  idsOfA.push(payment.body.id);
  const domain = await server.api.post("/v1/white-label/domains", { domain: "a.example.com" }, { token: aKey.secret });
  expect(domain.status).toBe(201);
  paramOfA.domain = domain.body.domain;
  for (const path of ["/v1/white-label/domains/{domain}", "/v1/white-label/domains/{domain}/verify"]) objectOfA[path] = domain.body.domain;
  idsOfA.push(domain.body.verification.value);
  paramOfA.version = "1";
  paramOfA.src = source.body.id;
  VALID_BODY["POST /v1/agents/{id}/test-function"] = { tool_id: tool.body.id, arguments: {} };
  idsOfA.push(tool.body.id, agent.body.id, kb.body.id, source.body.id, provider.body.id);
  objectOfA["/v1/api-keys/{id}"] = aKey.id;
  objectOfA["/v1/workspaces/current/members/{id}"] = member.memberId;
  objectOfA["/v1/audit-log/{id}"] = audit.body.data[0].id;
  objectOfA["/v1/auth/sessions/{id}"] = session.body.data[0].id;
  idsOfA.push(a.workspaceId, a.userId, aKey.id, member.memberId, member.userId, audit.body.data[0].id, session.body.data[0].id);
});
afterAll(async () => {
  // A's test run ends before the server stops (a stopping node gives its jobs 10 s).
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; await Bun.sleep(100)) {
    if (!["queued", "running"].includes((await server.api.get(testRunOfA, { token: a.token })).body.status)) break;
  }
  await server.stop();
}, 30_000);

/** A valid body per mutating operation, so the answer is about ownership, not validation. */
const VALID_BODY: Record<string, unknown> = {
  "PATCH /v1/api-keys/{id}": { name: "renamed by B" },
  "PATCH /v1/agents/{id}": { name: "renamed by B" },
  "POST /v1/agents/{id}/chat": { message: "hello" },
  "PATCH /v1/tools/{id}": { description: "changed by B" },
  "PATCH /v1/knowledge-base/{id}": { name: "renamed by B" },
  "POST /v1/knowledge-base/{id}/sources": { type: "text", name: "B's", text: "planted by B" },
  "POST /v1/knowledge-base/{id}/query": { query: "secret notes" },
  "PATCH /v1/providers/{id}": { name: "renamed by B" },
  "PATCH /v1/telephony/carriers/{id}": { name: "renamed by B" },
  "PATCH /v1/workspaces/current/members/{id}": { role: "viewer" },
  "PATCH /v1/webhooks/{id}": { description: "changed by B" },
  "PATCH /v1/phone-numbers/{id}": { label: "B's now" },
  "POST /v1/phone-numbers/{id}/assign": { agent_id: "agent_of_b" },
  "POST /v1/calls/{id}/transfer": { to: "+14155550100" },
  "POST /v1/calls/{id}/say": { text: "planted by B" },
  "PATCH /v1/campaigns/{id}": { name: "renamed by B" },
  "PATCH /v1/schedules/{id}": { variables: { planted_by: "B" } },
  "PATCH /v1/widgets/{id}": { name: "renamed by B" },
  "POST /v1/agents/{id}/tests": { name: "planted by B", caller: { type: "script", turns: [{ hangup: true }] }, expectations: [] },
  "PATCH /v1/agents/{id}/tests/{test_id}": { description: "changed by B" },
  "POST /v1/agents/{id}/tests/from-call": { call_id: "call_of_b" },
  "POST /v1/agents/{id}/tests/import": { tests: [] },
};
/** Query strings for GET operations that need one, so the 404 is about the object and nothing else. */
const VALID_QUERY: Record<string, string> = {
  "GET /v1/knowledge-base/{id}/query": "?query=secret%20notes",
};
/** Paths B itself typed show up in B's own audit log; they are B's knowledge, not a leak. */
const pathsBTyped = new Set<string>();

// Carrier callbacks take no workspace credential (the carrier's signature is tested with each carrier).
const operations = servedOperations().filter((op) => op.auth !== "public" && op.auth !== "carrier");

describe("cross-workspace matrix", () => {
  test("every path with an id is covered", () => {
    const withIds = operations.filter((op) => op.path.includes("{")).map((op) => op.path);
    for (const path of withIds) expect(Boolean(objectOfA[path] || NOT_WORKSPACE_OBJECTS[path])).toBe(true);
  });

  for (const op of operations) {
    test(`${op.number} ${op.method} ${op.path}`, async () => {
      if (NOT_WORKSPACE_OBJECTS[op.path]) return;
      // Logging out only ever ends the caller's own session; it would just end B's for the rest of the matrix.
      if (SESSION_ENDING.has(`${op.method} ${op.path}`)) return;
      const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "id" || name === "token" ? objectOfA[op.path] : paramOfA[name]));
      // B's owner session (user-level and workspace routes) and B's admin key (workspace routes).
      const credentials = op.auth === "user" ? [b.token] : [b.token, bKey];
      for (const token of credentials) {
        const body = VALID_BODY[`${op.method} ${op.path}`] ?? (["POST", "PUT", "PATCH"].includes(op.method) ? {} : undefined);
        pathsBTyped.add(path);
        const res = await server.api.request(op.method, path + (VALID_QUERY[`${op.method} ${op.path}`] ?? ""), body, { token });
        if (op.path.includes("{")) {
          expect(`${res.status} ${res.body?.code}`).toBe("404 not_found");
        }
        let text = res.text;
        for (const typed of pathsBTyped) text = text.replaceAll(`"path":"${typed}"`, "");
        for (const id of idsOfA) expect(text).not.toContain(id);
      }
    });
  }

  test("A's objects are untouched after B's attempts", async () => {
    const key = await server.api.get(`/v1/api-keys/${objectOfA["/v1/api-keys/{id}"]}`, { token: a.token });
    expect(key.status).toBe(200);
    expect(key.body.name).not.toBe("renamed by B");
    const members = await server.api.get("/v1/workspaces/current/members", { token: a.token });
    const member = members.body.data.find((m: any) => m.id === objectOfA["/v1/workspaces/current/members/{id}"]);
    expect(member.role).toBe("member");
    const sessions = await server.api.get("/v1/auth/sessions", { token: a.token });
    expect(sessions.body.data.map((s: any) => s.id)).toContain(objectOfA["/v1/auth/sessions/{id}"]);
    const endpoint = await server.api.get(`/v1/webhooks/${objectOfA["/v1/webhooks/{id}"]}`, { token: a.token });
    expect(endpoint.body.description).toBeNull();
    const agent = await server.api.get(`/v1/agents/${objectOfA["/v1/agents/{id}"]}`, { token: a.token });
    expect(agent.body).toMatchObject({ name: "A's agent", version: 1 });
    const kb = await server.api.get(`/v1/knowledge-base/${objectOfA["/v1/knowledge-base/{id}"]}`, { token: a.token });
    expect(kb.body).toMatchObject({ name: "A's knowledge", counts: { sources: 1 } });
    const number = await server.api.get(`/v1/phone-numbers/${objectOfA["/v1/phone-numbers/{id}"]}`, { token: a.token });
    expect(number.body).toMatchObject({ label: "A's line", agent_id: objectOfA["/v1/agents/{id}"] });
    const call = await server.api.get(`/v1/calls/${objectOfA["/v1/calls/{id}"]}`, { token: a.token });
    expect(call.status).toBe(200);
    expect(call.body.erased_at).toBeNull();
    const campaign = await server.api.get(`/v1/campaigns/${objectOfA["/v1/campaigns/{id}"]}`, { token: a.token });
    expect(campaign.body).toMatchObject({ name: "A's campaign", status: "draft", counts: { total: 1, pending: 1 } });
    const schedule = await server.api.get(`/v1/schedules/${objectOfA["/v1/schedules/{id}"]}`, { token: a.token });
    expect(schedule.body).toMatchObject({ status: "scheduled", variables: {} });
    const widget = await server.api.get(`/v1/widgets/${objectOfA["/v1/widgets/{id}"]}`, { token: a.token });
    expect(widget.body).toMatchObject({ name: "A's widget", allowed_origins: ["https://a.example.com"] });
    const brand = await server.api.get("/v1/white-label", { token: a.token });
    expect(brand.body.domains.map((d: any) => d.domain)).toEqual(["a.example.com"]);
    const provider = await server.api.get("/v1/providers", { token: a.token });
    expect(provider.body.data.map((p: any) => p.name)).toContain("A's model");
  });

  test("a member cannot switch into a workspace they do not belong to", async () => {
    const res = await server.api.get("/v1/workspaces/current", { token: b.token, headers: { "x-workspace-id": a.workspaceId } });
    expect(res.status).toBe(403);
    expect(res.text).not.toContain(a.userId);
  });
});
