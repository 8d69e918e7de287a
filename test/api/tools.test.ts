import { describe, expect, test } from "bun:test";
import { registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { startTestServer } from "../helpers/server.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { verifySignatures } from "../helpers/webhooks.ts";

const s = serverWithUser("owner");
const token = () => s.user.token;

async function agentWithTool(toolUrl: string, extra: Record<string, unknown> = {}) {
  const tool = await s.server.api.post(
    "/v1/tools",
    { name: `lookup_${Math.random().toString(36).slice(2, 8)}`, description: "Look up an order", url: toolUrl, parameters: { type: "object", properties: { order_id: { type: "string" } } }, headers: { "x-api-key": "tool-secret-123" }, ...extra },
    { token: token() },
  );
  expect(tool.status).toBe(201);
  const agent = await s.server.api.post("/v1/agents", { name: "Tooled", tools: [{ type: "function", tool_id: tool.body.id }] }, { token: token() });
  expect(agent.status).toBe(201);
  return { tool: tool.body, agent: agent.body };
}

describe("tools", () => {
  test("CRUD: the secret is shown once, header values never; names are unique", async () => {
    const { tool } = await agentWithTool("https://tools.example.com/orders");
    expect(tool.secret).toMatch(/^whsec_/);
    expect(tool.header_names).toEqual(["x-api-key"]);
    const fetched = await s.server.api.get(`/v1/tools/${tool.id}`, { token: token() });
    expect(fetched.text).not.toContain("tool-secret-123");
    expect(fetched.body.secret).toBeUndefined();
    const duplicate = await s.server.api.post("/v1/tools", { name: tool.name, description: "again", url: "https://tools.example.com/x" }, { token: token() });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.code).toBe("name_taken");
    const renamed = await s.server.api.patch(`/v1/tools/${tool.id}`, { description: "Look up an order by id", timeout_ms: 2000 }, { token: token() });
    expect(renamed.body).toMatchObject({ description: "Look up an order by id", timeout_ms: 2000 });
  });

  test("a tool an agent uses cannot be deleted (409 names the agent)", async () => {
    const { tool, agent } = await agentWithTool("https://tools.example.com/orders");
    const res = await s.server.api.delete(`/v1/tools/${tool.id}`, { token: token() });
    expect(res.status).toBe(409);
    expect(res.body.detail).toContain(agent.id);
    await s.server.api.delete(`/v1/agents/${agent.id}`, { token: token() });
    expect((await s.server.api.delete(`/v1/tools/${tool.id}`, { token: token() })).status).toBe(204);
  });

  test("test-function calls the tool as a live call would: signed, with headers, mapped response", async () => {
    const server = startReceiver((request) => Response.json({ data: { status: "shipped", order: JSON.parse(request.body).arguments.order_id } }));
    const { tool, agent } = await agentWithTool(server.url, { response_path: "data.status" });
    const res = await s.server.api.post(`/v1/agents/${agent.id}/test-function`, { tool_id: tool.id, arguments: { order_id: "A-17" } }, { token: token() });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ result: "shipped", error: null, response: { status: 200, body: { data: { status: "shipped", order: "A-17" } } } });
    expect(res.body.request.headers["x-api-key"]).toBe("[redacted]");
    const [request] = server.requests;
    expect(request.headers["x-api-key"]).toBe("tool-secret-123");
    expect(JSON.parse(request.body)).toMatchObject({ tool: tool.name, arguments: { order_id: "A-17" }, agent_id: agent.id });
    expect(verifySignatures(request, tool.secret)).toEqual({ brand: true, standard: true });
    server.stop();
  });

  test("errors are mapped: HTTP failures, time-outs, missing paths, tools the agent lacks", async () => {
    const server = startReceiver(async (request) => {
      const { order_id } = JSON.parse(request.body).arguments;
      if (order_id === "slow") await Bun.sleep(600);
      if (order_id === "bad") return new Response("boom", { status: 500 });
      return Response.json({ other: 1 });
    });
    const { tool, agent } = await agentWithTool(server.url, { response_path: "data.status", timeout_ms: 200 });
    const call = (order_id: string) => s.server.api.post(`/v1/agents/${agent.id}/test-function`, { tool_id: tool.id, arguments: { order_id } }, { token: token() });
    const failed = await call("bad");
    expect(failed.body).toMatchObject({ error: "HTTP 500", result: { error: "the tool answered HTTP 500" }, response: { status: 500, body: "boom" } });
    const slow = await call("slow");
    expect(slow.body.error).toBe("timeout after 200 ms");
    expect(slow.body.response).toBeNull();
    const missing = await call("ok");
    expect(missing.body.error).toBe("response_path data.status not found");
    const other = await s.server.api.post("/v1/tools", { name: "unattached", description: "x", url: server.url }, { token: token() });
    const notAttached = await s.server.api.post(`/v1/agents/${agent.id}/test-function`, { tool_id: other.body.id }, { token: token() });
    expect(notAttached.status).toBe(422);
    expect(notAttached.body.errors[0].field).toBe("tool_id");
    server.stop();
  });

  test("tool URLs follow the webhook URL rules", async () => {
    const strict = await startTestServer({ settings: { allowPrivateUrls: "false" } });
    try {
      const user = await registerUser(strict.api);
      const res = await strict.api.post("/v1/tools", { name: "internal", description: "x", url: "https://10.0.0.5/x" }, { token: user.token });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].field).toBe("url");
    } finally {
      await strict.stop();
    }
  });
});
