// Every error class leaves as RFC 9457 problem+json with a machine-readable code and no stack trace.
import { describe, expect, test } from "bun:test";
import { createKey, registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { sqliteOnly, startTestServer } from "../helpers/server.ts";
import { holdWriteLock } from "../helpers/write-lock.ts";

const s = serverWithUser();

function expectProblem(res: { status: number; headers: Headers; body: any; text: string }, status: number, code: string) {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.body).toMatchObject({ status, code, type: `urn:problem:${code}` });
  expect(typeof res.body.title).toBe("string");
  expect(typeof res.body.detail).toBe("string");
  expect(res.body.request_id).toBe(res.headers.get("x-request-id"));
  expect(res.text).not.toMatch(/at .*\.ts:\d+|node_modules|stack/);
}

describe("problem+json for each error class", () => {
  test("404 for an unknown route", async () => {
    const res = await s.server.api.get("/v1/nothing-here");
    expectProblem(res, 404, "not_found");
    expect(res.body.detail).toContain("/v1/nothing-here");
  });

  test("404 for a missing object", async () => {
    expectProblem(await s.server.api.get("/v1/api-keys/key_missing", { token: s.user.token }), 404, "not_found");
  });

  test("405 with Allow for a known path and the wrong method", async () => {
    const res = await s.server.api.request("PUT", "/v1/auth/login", { a: 1 });
    expectProblem(res, 405, "method_not_allowed");
    expect(res.headers.get("allow")).toBe("POST");
    const withId = await s.server.api.request("POST", "/v1/api-keys/key_x", {}, { token: s.user.token });
    expectProblem(withId, 405, "method_not_allowed");
    expect(withId.headers.get("allow")).toBe("DELETE, GET, HEAD, PATCH");
  });

  test("400 for malformed JSON", async () => {
    const res = await s.server.api.post("/v1/auth/login", undefined, { raw: '{"email": "a@b.c", ' });
    expectProblem(res, 400, "malformed_json");
  });

  test("413 for a body over 1 MiB, declared or streamed", async () => {
    const big = JSON.stringify({ email: "a@b.c", password: "x".repeat(1024 * 1024) });
    expectProblem(await s.server.api.post("/v1/auth/login", undefined, { raw: big }), 413, "payload_too_large");
    // Chunked upload with no Content-Length: the limit still holds while reading.
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode("x".repeat(100 * 1024)));
        controller.close();
      },
    });
    const res = await fetch(`${s.server.url}/v1/auth/login`, { method: "POST", headers: { "content-type": "application/json" }, body: stream, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe("payload_too_large");
  });

  test("415 for a body that is not JSON", async () => {
    const res = await s.server.api.post("/v1/auth/login", undefined, { raw: "email=a@b.c&password=x", contentType: "application/x-www-form-urlencoded" });
    expectProblem(res, 415, "unsupported_media_type");
    expect(res.body.detail).toContain("application/json");
  });

  test("422 names every offending field, including unknown ones and query parameters", async () => {
    const res = await s.server.api.post("/v1/api-keys", { name: "", scope: "everything", colour: "red" }, { token: s.user.token });
    expectProblem(res, 422, "validation_failed");
    const fields = res.body.errors.map((e: any) => e.field).sort();
    expect(fields).toEqual(["colour", "name", "scope"]);
    expect(res.body.errors.find((e: any) => e.field === "scope").message).toBe("must be one of: read-only, write, admin");
    expect(res.body.errors.find((e: any) => e.field === "colour").message).toBe("is not a known field");

    const query = await s.server.api.get("/v1/api-keys?limit=500", { token: s.user.token });
    expectProblem(query, 422, "validation_failed");
    expect(query.body.errors[0].field).toBe("limit");
    const notNumber = await s.server.api.get("/v1/api-keys?limit=many", { token: s.user.token });
    expect(notNumber.body.errors[0].field).toBe("limit");
    const cursor = await s.server.api.get("/v1/api-keys?cursor=garbage", { token: s.user.token });
    expectProblem(cursor, 422, "validation_failed");
    expect(cursor.body.errors[0].field).toBe("cursor");

    const missing = await s.server.api.post("/v1/auth/register", { password: "long enough pass" });
    expect(missing.body.errors).toEqual([{ field: "email", message: expect.any(String) }]);
    const notObject = await s.server.api.post("/v1/auth/login", [1, 2]);
    expectProblem(notObject, 422, "validation_failed");
  });

  test("401 for missing and invalid credentials", async () => {
    expectProblem(await s.server.api.get("/v1/auth/me"), 401, "unauthorized");
    expectProblem(await s.server.api.get("/v1/auth/me", { token: "sk_parley_live_nope" }), 401, "unauthorized");
    expectProblem(await s.server.api.get("/v1/auth/me", { headers: { authorization: "Basic Zm9vOmJhcg==" } }), 401, "unauthorized");
  });

  test("403 for an insufficient scope", async () => {
    const key = await s.server.api.post("/v1/api-keys", { name: "ro", scope: "read-only" }, { token: s.user.token });
    expectProblem(await s.server.api.post("/v1/api-keys", { name: "x", scope: "admin" }, { token: key.body.key }), 403, "insufficient_scope");
  });

  test("409 with a code naming the situation: an e-mail taken, a last owner, a resource in use", async () => {
    expectProblem(await s.server.api.post("/v1/auth/register", { email: s.user.email, password: "whatever long" }), 409, "email_taken");
    const members = (await s.server.api.get("/v1/workspaces/current/members", { token: s.user.token })).body.data;
    const owner = members.find((m: { role: string }) => m.role === "owner");
    expectProblem(await s.server.api.patch(`/v1/workspaces/current/members/${owner.id}`, { role: "admin" }, { token: s.user.token }), 409, "last_owner");
    const tool = await s.server.api.post("/v1/tools", { name: "lookup_order", description: "Find an order", url: "https://tools.example.com/order" }, { token: s.user.token });
    expect(tool.status).toBe(201);
    const agent = await s.server.api.post("/v1/agents", { name: "Uses the tool", tools: [{ type: "function", tool_id: tool.body.id }] }, { token: s.user.token });
    expect(agent.status).toBe(201);
    expectProblem(await s.server.api.delete(`/v1/tools/${tool.body.id}`, { token: s.user.token }), 409, "resource_in_use");
  });

  test("429 past the rate limit", async () => {
    const limited = await startTestServer({ settings: { publicRateLimitPerMinute: "1" } });
    try {
      await limited.api.get("/openapi.json");
      const res = await limited.api.get("/openapi.json");
      expectProblem(res, 429, "rate_limited");
    } finally {
      await limited.stop();
    }
  });

  // SQLite's write lock; PostgreSQL's counterpart, its server away, is test/postgres/outage.test.ts.
  sqliteOnly("503 with Retry-After for a write the database cannot take (another process holds its write lock); reads go on", async () => {
    const server = await startTestServer();
    try {
      const owner = await registerUser(server.api, "busy");
      const key = (await createKey(server.api, owner.token, "write")).secret;
      const lock = holdWriteLock(server.ctx);
      try {
        const res = await server.api.post("/v1/agents", { name: "Waiting" }, { token: key });
        expectProblem(res, 503, "service_unavailable");
        expect(res.headers.get("retry-after")).toBe("1");
        expect(res.body.detail).toContain("another process holds its write lock");
        expect((await server.api.get("/v1/agents", { token: key })).body.data).toEqual([]);
      } finally {
        lock.release();
      }
      expect(server.logs.some((line) => line.includes("WARN") && line.includes("the database refused a request's write"))).toBe(true);
      expect(server.logs.some((line) => line.includes("unhandled error"))).toBe(false);
      expect((await server.api.post("/v1/agents", { name: "Waiting" }, { token: key })).status).toBe(201);
    } finally {
      await server.stop();
    }
  });

  test("a request id sent by the client is echoed", async () => {
    const res = await s.server.api.get("/v1/nothing", { headers: { "x-request-id": "client-trace-12345" } });
    expect(res.headers.get("x-request-id")).toBe("client-trace-12345");
    expect(res.body.request_id).toBe("client-trace-12345");
  });
});

describe("who may call comes before anything about the body", () => {
  const send = (token: string | null, body: string, type = "application/json") =>
    fetch(`${s.server.url}/v1/agents`, { method: "POST", headers: { "content-type": type, ...(token ? { authorization: `Bearer ${token}` } : {}) }, body });

  test("a read-only key gets 403 for a write, whatever its body: invalid, malformed, wrong type or too large", async () => {
    const key = await createKey(s.server.api, s.user.token, "read-only");
    for (const [body, type] of [['{"name": 5}', "application/json"], ["{not json", "application/json"], ["name=x", "text/plain"], ["x".repeat(2 * 1024 * 1024), "application/json"]]) {
      const res = await send(key.secret, body, type);
      expect(`${type} ${body.slice(0, 12)}: ${res.status} ${((await res.json()) as { code: string }).code}`).toBe(`${type} ${body.slice(0, 12)}: 403 insufficient_scope`);
    }
  });

  test("no credential gets 401 before the body is read; a write key gets the body's errors", async () => {
    const res = await send(null, "{not json");
    expect(res.status).toBe(401);
    const key = await createKey(s.server.api, s.user.token, "write");
    expect((await send(key.secret, "{not json")).status).toBe(400);
    expect((await send(key.secret, '{"name": 5}')).status).toBe(422);
  });
});
