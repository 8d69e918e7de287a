import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let user: RegisteredUser;
beforeAll(async () => {
  server = await startTestServer();
  user = await registerUser(server.api);
});
afterAll(() => server.stop());

describe("Idempotency-Key on POST", () => {
  test("a repeat with the same key and body returns the stored response, creating nothing new", async () => {
    const headers = { "idempotency-key": "create-key-1" };
    const first = await server.api.post("/v1/api-keys", { name: "ci", scope: "write" }, { token: user.token, headers });
    expect(first.status).toBe(201);
    const second = await server.api.post("/v1/api-keys", { name: "ci", scope: "write" }, { token: user.token, headers });
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    const list = await server.api.get("/v1/api-keys", { token: user.token });
    expect(list.body.data.filter((k: any) => k.name === "ci")).toHaveLength(1);
  });

  test("the same key with a different body is 409", async () => {
    const headers = { "idempotency-key": "create-key-2" };
    expect((await server.api.post("/v1/api-keys", { name: "a", scope: "write" }, { token: user.token, headers })).status).toBe(201);
    const clash = await server.api.post("/v1/api-keys", { name: "b", scope: "write" }, { token: user.token, headers });
    expect(clash.status).toBe(409);
    expect(clash.body.code).toBe("idempotency_key_reused");
  });

  test("4xx answers are replayed too; keys are per credential", async () => {
    const headers = { "idempotency-key": "bad-1" };
    const bad = await server.api.post("/v1/api-keys", { name: "x", scope: "root" }, { token: user.token, headers });
    expect(bad.status).toBe(422);
    // Validation runs before the key is claimed, so the same invalid body gives the same answer again.
    expect((await server.api.post("/v1/api-keys", { name: "x", scope: "root" }, { token: user.token, headers })).status).toBe(422);

    const other = await registerUser(server.api);
    const mine = await server.api.post("/v1/api-keys", { name: "same", scope: "write" }, { token: user.token, headers: { "idempotency-key": "shared" } });
    const theirs = await server.api.post("/v1/api-keys", { name: "same", scope: "write" }, { token: other.token, headers: { "idempotency-key": "shared" } });
    expect(theirs.status).toBe(201);
    expect(theirs.body.id).not.toBe(mine.body.id);

    const conflict = await server.api.post("/v1/workspaces/current/members", { email: user.email, role: "member" }, { token: user.token, headers: { "idempotency-key": "dup" } });
    expect(conflict.status).toBe(409);
    const replay = await server.api.post("/v1/workspaces/current/members", { email: user.email, role: "member" }, { token: user.token, headers: { "idempotency-key": "dup" } });
    expect(replay.status).toBe(409);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");

  });

  test("without a key every POST runs", async () => {
    const a = await server.api.post("/v1/api-keys", { name: "twice", scope: "write" }, { token: user.token });
    const b = await server.api.post("/v1/api-keys", { name: "twice", scope: "write" }, { token: user.token });
    expect(a.body.id).not.toBe(b.body.id);
  });

  test("public POSTs are keyed by client IP", async () => {
    const body = { email: "idem@example.test", password: "long enough pass" };
    const headers = { "idempotency-key": "register-1" };
    const first = await server.api.post("/v1/auth/register", body, { headers });
    const second = await server.api.post("/v1/auth/register", body, { headers });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.user.id).toBe(first.body.user.id);
  });

  test("malformed keys are refused", async () => {
    const res = await server.api.post("/v1/api-keys", { name: "x", scope: "write" }, { token: user.token, headers: { "idempotency-key": "x".repeat(300) } });
    expect(res.status).toBe(400);
  });

  test("stored responses expire after 24 h (runs last: it moves the clock)", async () => {
    const headers = { "idempotency-key": "expiring" };
    const first = await server.api.post("/v1/auth/register", { email: "expiring@example.test", password: "long enough pass" }, { headers });
    expect(first.status).toBe(201);
    server.clock.advance(24 * 60 * 60 * 1000 + 1);
    const again = await server.api.post("/v1/auth/register", { email: "expiring@example.test", password: "long enough pass" }, { headers });
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.status).toBe(409); // it really ran again: the e-mail is now taken
  });
});
