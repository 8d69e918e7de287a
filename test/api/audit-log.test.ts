import { describe, expect, test } from "bun:test";
import { createKey, serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser();

describe("audit log", () => {
  test("every API-key request is recorded and can be filtered by key (confirming traffic on a rotated key)", async () => {
    const oldKey = await createKey(s.server.api, s.user.token, "read-only", "old");
    const newKey = await createKey(s.server.api, s.user.token, "read-only", "new");
    await s.server.api.get("/v1/workspaces/current", { token: oldKey.secret, headers: { "user-agent": "billing-sync/2.1" } });
    await s.server.api.get("/v1/workspaces/current", { token: newKey.secret, headers: { "user-agent": "billing-sync/2.2", "x-request-id": "trace-new-key-1" } });
    await s.server.api.get("/v1/auth/me", { token: newKey.secret });

    const res = await s.server.api.get(`/v1/audit-log?key_id=${newKey.id}`, { token: s.user.token });
    expect(res.status).toBe(200);
    expect(res.body.data).toHaveLength(2);
    const entry = res.body.data.find((e: any) => e.request_id === "trace-new-key-1");
    expect(entry).toMatchObject({
      object: "audit_entry",
      actor_type: "api_key",
      actor_id: newKey.id,
      api_key_id: newKey.id,
      action: "getCurrentWorkspace",
      method: "GET",
      path: "/v1/workspaces/current",
      status: 200,
      ip: "127.0.0.1",
      user_agent: "billing-sync/2.2",
    });
    const one = await s.server.api.get(`/v1/audit-log/${entry.id}`, { token: s.user.token });
    expect(one.body).toEqual(entry);
  });

  test("mutations by users are recorded with their status; a user's reads are not", async () => {
    await s.server.api.patch("/v1/workspaces/current", { name: "Audited" }, { token: s.user.token });
    await s.server.api.patch("/v1/workspaces/current", { timezone: "Nowhere/Land" }, { token: s.user.token });
    await s.server.api.get("/v1/workspaces/current", { token: s.user.token });
    const res = await s.server.api.get(`/v1/audit-log?actor_id=${s.user.userId}&action=updateCurrentWorkspace`, { token: s.user.token });
    expect(res.body.data.map((e: any) => e.status).sort()).toEqual([200, 422]);
    const reads = await s.server.api.get(`/v1/audit-log?actor_id=${s.user.userId}&action=getCurrentWorkspace`, { token: s.user.token });
    expect(reads.body.data).toHaveLength(0);
    const registration = await s.server.api.get("/v1/audit-log?action=registerUser", { token: s.user.token });
    expect(registration.body.data).toHaveLength(1);
  });

  test("filter by time window", async () => {
    const key = await createKey(s.server.api, s.user.token, "read-only", "timed");
    const before = new Date(s.server.clock.now()).toISOString();
    s.server.clock.advance(60_000);
    await s.server.api.get("/v1/workspaces/current", { token: key.secret });
    const after = new Date(s.server.clock.now() + 1).toISOString();
    const inside = await s.server.api.get(`/v1/audit-log?key_id=${key.id}&from=${encodeURIComponent(before)}&to=${encodeURIComponent(after)}`, { token: s.user.token });
    expect(inside.body.data).toHaveLength(1);
    const outside = await s.server.api.get(`/v1/audit-log?key_id=${key.id}&to=${encodeURIComponent(before)}`, { token: s.user.token });
    expect(outside.body.data).toHaveLength(0);
    const bad = await s.server.api.get(`/v1/audit-log?from=yesterday`, { token: s.user.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe("from");
  });

  test("audit rows are written in batches, not one commit per request", async () => {
    const key = await createKey(s.server.api, s.user.token, "read-only", "batched");
    const count = () => (s.server.ctx.sqlite.prepare("SELECT count(*) AS n FROM audit_log WHERE api_key_id = ?").get(key.id) as { n: number }).n;
    for (let i = 0; i < 5; i++) await s.server.api.get("/v1/workspaces/current", { token: key.secret });
    expect(count()).toBe(0); // still queued: the request did not wait for its audit row
    s.server.ctx.writeBehind.flush();
    expect(count()).toBe(5);
  });
});
