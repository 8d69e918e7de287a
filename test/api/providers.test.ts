import { describe, expect, test } from "bun:test";
import { startFakeOpenAI } from "../helpers/fake-openai.ts";
import { serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("owner");
const token = () => s.user.token;

describe("provider connections", () => {
  test("the built-in engines are always listed; keys are masked and sealed at rest", async () => {
    const created = await s.server.api.post("/v1/providers", { name: "Local vLLM", kind: "openai-compatible", base_url: "http://127.0.0.1:9/v1", api_key: "sk-local-abcdef1234" }, { token: token() });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "provider", kind: "openai-compatible", api_key: "••••1234", capabilities: ["llm", "stt", "tts", "embeddings"] });
    const list = await s.server.api.get("/v1/providers", { token: token() });
    expect(list.body.data[0]).toMatchObject({ id: "builtin", kind: "builtin" });
    expect(list.text).not.toContain("sk-local-abcdef1234");
    expect(JSON.stringify(s.server.ctx.sqlite.prepare("SELECT * FROM provider_connections").all())).not.toContain("sk-local-abcdef1234");
    const one = await s.server.api.get("/v1/providers?limit=1", { token: token() });
    expect(one.body.data.map((p: any) => p.id)).toEqual(["builtin"]);
    const next = await s.server.api.get(`/v1/providers?limit=1&cursor=${one.body.next_cursor}`, { token: token() });
    expect(next.body.data).toHaveLength(1);
  });

  test("validation: openai-compatible needs a base URL, deepgram and elevenlabs a key", async () => {
    const noUrl = await s.server.api.post("/v1/providers", { name: "x", kind: "openai-compatible" }, { token: token() });
    expect(noUrl.body.errors[0].field).toBe("base_url");
    const noKey = await s.server.api.post("/v1/providers", { name: "x", kind: "deepgram" }, { token: token() });
    expect(noKey.body.errors[0].field).toBe("api_key");
    const badKind = await s.server.api.post("/v1/providers", { name: "x", kind: "watson" }, { token: token() });
    expect(badKind.body.errors[0].field).toBe("kind");
  });

  test("check makes a real request and reports latency, or the exact failure", async () => {
    const fake = startFakeOpenAI({ apiKey: "sk-right" });
    const good = await s.server.api.post("/v1/providers", { name: "fake", kind: "openai-compatible", base_url: fake.url, api_key: "sk-right" }, { token: token() });
    const ok = await s.server.api.post(`/v1/providers/${good.body.id}/check`, undefined, { token: token() });
    expect(ok.body).toMatchObject({ ok: true, error: null, detail: "2 model(s): fake-chat, fake-embed" });
    expect(ok.body.latency_ms).toBeGreaterThanOrEqual(0);
    expect(fake.requests.at(-1)!.headers.authorization).toBe("Bearer sk-right");

    const wrongKey = await s.server.api.patch(`/v1/providers/${good.body.id}`, { api_key: "sk-wrong" }, { token: token() });
    expect(wrongKey.body.api_key).toBe("••••rong");
    const denied = await s.server.api.post(`/v1/providers/${good.body.id}/check`, undefined, { token: token() });
    expect(denied.body.ok).toBe(false);
    expect(denied.body.error).toMatch(/^GET \/models answered HTTP 401: .*Incorrect API key/);
    fake.stop();

    const down = await s.server.api.post("/v1/providers", { name: "down", kind: "openai-compatible", base_url: "http://127.0.0.1:9/v1" }, { token: token() });
    const unreachable = await s.server.api.post(`/v1/providers/${down.body.id}/check`, undefined, { token: token() });
    expect(unreachable.body.ok).toBe(false);
    expect(unreachable.body.error).toMatch(/^cannot reach the model server/);
  });

  test("deepgram and elevenlabs are checked with their own auth schemes", async () => {
    const seen: Record<string, string | null> = {};
    const fake = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch(request) {
        const path = new URL(request.url).pathname;
        seen[path] = request.headers.get("authorization") ?? request.headers.get("xi-api-key");
        if (path === "/v1/projects") return Response.json({ projects: [{ project_id: "p1" }] });
        if (path === "/v1/user") return Response.json({ subscription: { tier: "creator" } });
        return new Response("no", { status: 404 });
      },
    });
    const base = `http://127.0.0.1:${fake.port}`;
    const deepgram = await s.server.api.post("/v1/providers", { name: "dg", kind: "deepgram", base_url: base, api_key: "dg-key" }, { token: token() });
    const eleven = await s.server.api.post("/v1/providers", { name: "el", kind: "elevenlabs", base_url: base, api_key: "el-key" }, { token: token() });
    expect((await s.server.api.post(`/v1/providers/${deepgram.body.id}/check`, undefined, { token: token() })).body).toMatchObject({ ok: true, detail: "1 project(s)" });
    expect((await s.server.api.post(`/v1/providers/${eleven.body.id}/check`, undefined, { token: token() })).body).toMatchObject({ ok: true, detail: "subscription creator" });
    expect(seen).toEqual({ "/v1/projects": "Token dg-key", "/v1/user": "el-key" });
    fake.stop(true);
  });

  test("a connection an agent uses cannot be removed; roles are checked", async () => {
    const fake = startFakeOpenAI();
    const provider = await s.server.api.post("/v1/providers", { name: "llm", kind: "openai-compatible", base_url: fake.url }, { token: token() });
    const tts = await s.server.api.post("/v1/providers", { name: "dg", kind: "deepgram", api_key: "k" }, { token: token() });
    const misuse = await s.server.api.post("/v1/agents", { name: "x", voice: { provider_id: tts.body.id, voice_id: "v" } }, { token: token() });
    expect(misuse.body.errors[0]).toEqual({ field: "voice.provider_id", message: "a deepgram connection cannot serve as voice; use openai-compatible or elevenlabs" });
    const agent = await s.server.api.post("/v1/agents", { name: "LLM agent", brain: { type: "llm", provider_id: provider.body.id, model: "fake-chat" } }, { token: token() });
    expect(agent.status).toBe(201);
    const blocked = await s.server.api.delete(`/v1/providers/${provider.body.id}`, { token: token() });
    expect(blocked.status).toBe(409);
    expect(blocked.body.detail).toContain(agent.body.id);
    fake.stop();
  });
});
