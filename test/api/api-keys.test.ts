import { describe, expect, test } from "bun:test";
import { serverWithUser } from "../helpers/fixtures.ts";
import { walkPages } from "../helpers/pages.ts";

const s = serverWithUser();

describe("API keys", () => {
  test("the secret has the brand prefix, is shown once, and only its prefix and last four come back", async () => {
    const created = await s.server.api.post("/v1/api-keys", { name: "production", scope: "write" }, { token: s.user.token });
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_parley_live_[0-9A-Za-z]{40}$/);
    expect(created.body).toMatchObject({ object: "api_key", name: "production", scope: "write", mode: "live", prefix: "sk_parley_live_", last_four: created.body.key.slice(-4) });
    expect(created.body.id).toMatch(/^key_/);
    const fetched = await s.server.api.get(`/v1/api-keys/${created.body.id}`, { token: s.user.token });
    expect(fetched.status).toBe(200);
    expect(fetched.text).not.toContain(created.body.key);
    expect(fetched.body.redacted_key).toBe(`sk_parley_live_…${created.body.key.slice(-4)}`);
    const list = await s.server.api.get("/v1/api-keys", { token: s.user.token });
    expect(list.text).not.toContain(created.body.key);
    // Only the hash is stored.
    const stored = s.server.ctx.sqlite.prepare("SELECT * FROM api_keys WHERE id = ?").get(created.body.id) as Record<string, unknown>;
    expect(JSON.stringify(stored)).not.toContain(created.body.key);
  });

  test("test-mode keys get the test prefix", async () => {
    const created = await s.server.api.post("/v1/api-keys", { name: "sandbox", scope: "read-only", mode: "test" }, { token: s.user.token });
    expect(created.body.key).toMatch(/^sk_parley_test_/);
  });

  test("a key works immediately, records last use, and stops working on the next request after revocation", async () => {
    const created = await s.server.api.post("/v1/api-keys", { name: "rotating", scope: "read-only" }, { token: s.user.token });
    expect(created.body.last_used_at).toBeNull();
    const me = await s.server.api.get("/v1/auth/me", { token: created.body.key });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ object: "api_key", id: created.body.id, workspace: { id: s.user.workspaceId } });
    const after = await s.server.api.get(`/v1/api-keys/${created.body.id}`, { token: s.user.token });
    expect(after.body.last_used_at).not.toBeNull();

    expect((await s.server.api.delete(`/v1/api-keys/${created.body.id}`, { token: s.user.token })).status).toBe(204);
    const denied = await s.server.api.get("/v1/auth/me", { token: created.body.key });
    expect(denied.status).toBe(401);
    expect((await s.server.api.get(`/v1/api-keys/${created.body.id}`, { token: s.user.token })).status).toBe(404);
    expect((await s.server.api.delete(`/v1/api-keys/${created.body.id}`, { token: s.user.token })).status).toBe(404);
  });

  test("rename", async () => {
    const created = await s.server.api.post("/v1/api-keys", { name: "old", scope: "admin" }, { token: s.user.token });
    const renamed = await s.server.api.patch(`/v1/api-keys/${created.body.id}`, { name: "new" }, { token: s.user.token });
    expect(renamed.status).toBe(200);
    expect(renamed.body.name).toBe("new");
    expect((await s.server.api.patch(`/v1/api-keys/${created.body.id}`, { scope: "admin" }, { token: s.user.token })).status).toBe(422);
  });

  test("a key's next request sees its own rename and its workspace's new name (resolved keys are not served stale)", async () => {
    const created = await s.server.api.post("/v1/api-keys", { name: "before", scope: "admin" }, { token: s.user.token });
    const key = created.body.key;
    expect((await s.server.api.get("/v1/auth/me", { token: key })).body.api_key.name).toBe("before");
    await s.server.api.patch(`/v1/api-keys/${created.body.id}`, { name: "after" }, { token: s.user.token });
    const workspaceName = `renamed ${Date.now()}`;
    expect((await s.server.api.patch("/v1/workspaces/current", { name: workspaceName }, { token: key })).status).toBe(200);
    const me = await s.server.api.get("/v1/auth/me", { token: key });
    expect(me.body.api_key.name).toBe("after");
    expect(me.body.workspace.name).toBe(workspaceName);
  });

  test("GET /auth/me with a key shows that very request as its last use, request after request", async () => {
    const created = await s.server.api.post("/v1/api-keys", { name: "busy", scope: "read-only" }, { token: s.user.token });
    for (let i = 0; i < 3; i++) {
      s.server.clock.advance(1000);
      const me = await s.server.api.get("/v1/auth/me", { token: created.body.key });
      expect(Date.parse(me.body.api_key.last_used_at)).toBe(s.server.clock.now());
    }
  });

  test("keys never expire: still valid a year later", async () => {
    const created = await s.server.api.post("/v1/api-keys", { name: "forever", scope: "read-only" }, { token: s.user.token });
    s.server.clock.advance(366 * 24 * 60 * 60 * 1000);
    expect((await s.server.api.get("/v1/workspaces/current", { token: created.body.key })).status).toBe(200);
  });

  test("list pages with a cursor", async () => {
    const user = (await s.server.api.post("/v1/auth/login", { email: s.user.email, password: s.user.password })).body.access_token;
    for (let i = 0; i < 5; i++) await s.server.api.post("/v1/api-keys", { name: `page-${i}`, scope: "read-only" }, { token: user });
    const seen = await walkPages(s.server.api, "/v1/api-keys", user, 2);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeGreaterThanOrEqual(5);
  });
});
