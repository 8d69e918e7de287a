// --audit-retention-days: audit rows older than the retention go (hourly sweep), every workspace's, in
// chunks; younger rows stay; 0 (the default) keeps every row and registers no sweep.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildConfig, ConfigError } from "../../src/config/config.ts";
import { recordAudit } from "../../src/http/audit-writer.ts";
import { auditRetentionSweeps, deleteAuditBefore } from "../../src/modules/audit-log/retention.ts";
import { DAY } from "../../src/lib/time.ts";
import { createKey, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let alice: RegisteredUser;
let bob: RegisteredUser;
beforeAll(async () => {
  server = await startTestServer({ settings: { auditRetentionDays: "30" } });
  alice = await registerUser(server.api, "alice");
  bob = await registerUser(server.api, "bob");
});
afterAll(() => server?.stop());

// What is stored, read straight from the database: reading through the API would add rows of its own.
const auditOf = (user: RegisteredUser) => {
  server.ctx.writeBehind.flush();
  return server.ctx.sqlite
    .prepare("SELECT action, api_key_id, created_at FROM audit_log WHERE workspace_id = ? ORDER BY created_at, id")
    .all(user.workspaceId) as { action: string; api_key_id: string | null; created_at: number }[];
};

describe("audit retention", () => {
  test("a row exactly at the cutoff stays; one a millisecond older goes", async () => {
    const key = await createKey(server.api, alice.token, "read-only", "edge");
    const at = server.clock.now();
    await server.api.get("/v1/auth/me", { token: key.secret });
    server.clock.advance(1);
    await server.api.get("/v1/auth/me", { token: key.secret });
    server.ctx.writeBehind.flush(); // the sweep deletes committed rows only
    expect(await deleteAuditBefore(server.ctx, at + 1)).toBeGreaterThanOrEqual(1);
    const left = auditOf(alice).filter((entry) => entry.api_key_id === key.id);
    expect(left.map((entry) => entry.created_at)).toEqual([at + 1]);
  });

  test("rows older than the retention go, in every workspace and past one chunk; younger rows stay", async () => {
    const aliceKey = await createKey(server.api, alice.token, "read-only", "old traffic");
    const bobKey = await createKey(server.api, bob.token, "read-only", "old traffic");
    await server.api.get("/v1/auth/me", { token: aliceKey.secret });
    await server.api.get("/v1/auth/me", { token: bobKey.secret });
    // More old rows than one delete chunk (1,000) in one workspace, as a busy key leaves them.
    for (let i = 0; i < 2_500; i++) {
      recordAudit(server.ctx, { workspaceId: alice.workspaceId, actorType: "api_key", actorId: aliceKey.id, apiKeyId: aliceKey.id, action: "getMe", method: "GET", path: "/v1/auth/me", status: 200, ip: "127.0.0.1", userAgent: "poller/1.0", requestId: `req_old_${i}` });
    }
    const oldCount = auditOf(alice).length + (auditOf(bob)).length;
    expect(oldCount).toBeGreaterThan(2_500);

    server.clock.advance(31 * DAY);
    await server.api.get("/v1/auth/me", { token: aliceKey.secret });
    await server.api.get("/v1/workspaces/current", { token: bobKey.secret });
    const [sweep] = auditRetentionSweeps(server.ctx);
    expect(sweep.name).toBe("audit retention");
    await sweep.run();

    const aliceLeft = auditOf(alice);
    expect(aliceLeft.map((entry) => entry.action)).toEqual(["getMe"]);
    expect(aliceLeft[0].created_at).toBe(server.clock.now());
    const bobLeft = auditOf(bob);
    expect(bobLeft.map((entry) => entry.action)).toEqual(["getCurrentWorkspace"]);
    const line = server.logs.find((entry) => entry.includes("audit rows past their retention deleted"));
    expect(line).toContain(`rows=${oldCount}`);
    expect(line).toContain("retention_days=30");
  });

  test("0 keeps every row (no sweep); a negative retention is refused", () => {
    expect(buildConfig({}).auditRetentionDays).toBe(0);
    expect(auditRetentionSweeps({ ...server.ctx, config: { ...server.ctx.config, auditRetentionDays: 0 } })).toEqual([]);
    expect(() => buildConfig({ auditRetentionDays: "-1" })).toThrow(ConfigError);
    expect(() => buildConfig({ auditRetentionDays: "-1" })).toThrow("--audit-retention-days must be 0 (keep every row) or more");
    expect(() => buildConfig({ auditRetentionDays: "a week" })).toThrow(ConfigError);
  });
});
