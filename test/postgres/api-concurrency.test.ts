// Two Parley processes on one PostgreSQL database (two nodes), racing where SQLite's single writer used to
// serialise for free: rotating a refresh token, and taking an Idempotency-Key. The test's own connection
// holds the row both requests need until both are waiting on it, then lets go: they meet the row at the
// same moment, on PostgreSQL's READ COMMITTED, and exactly one may win.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL } from "bun";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashOpaqueToken } from "../../src/lib/opaque-token.ts";
import { ApiClient } from "../helpers/client.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { FROM_SOURCE, spawnServer, type ServerProcess } from "../helpers/process.ts";

const root = mkdtempSync(join(tmpdir(), "parley-pgrace-"));
const url = freshDatabase();
const nodes: ServerProcess[] = [];
let a: ApiClient;
let b: ApiClient;
let holder: SQL;

beforeAll(async () => {
  const flags = (dir: string) => ["--data-dir", join(root, dir), "--database-url", url, "--public-rate-limit-per-minute", "10000", "--rate-limit-per-minute", "10000"];
  nodes.push(await spawnServer(FROM_SOURCE, flags("a")));
  // The second node shares the first one's instance key, as nodes of one instance do (tokens and sealed rows read on both).
  mkdirSync(join(root, "b"));
  copyFileSync(join(root, "a", "instance.key"), join(root, "b", "instance.key"));
  nodes.push(await spawnServer(FROM_SOURCE, flags("b")));
  [a, b] = nodes.map((node) => new ApiClient(node.url));
  holder = new SQL({ url, max: 2 });
}, 60_000);

afterAll(async () => {
  await holder?.close();
  for (const node of nodes) await node.stop();
  rmSync(root, { recursive: true, force: true });
}, 30_000);

/** Runs `hold` in a transaction of the test's own, fires `race` and lets go once `waiters` statements wait on a lock. */
async function whileHeld<T>(hold: (tx: SQL) => Promise<unknown>, race: () => Promise<T>, waiters: number, end: "COMMIT" | "ROLLBACK"): Promise<T> {
  const tx = await holder.reserve();
  try {
    await tx`BEGIN`;
    await hold(tx as unknown as SQL);
    const racing = race();
    const deadline = Date.now() + 15_000;
    for (;;) {
      const [{ n }] = await holder`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;
      if (n >= waiters) break;
      if (Date.now() > deadline) throw new Error(`only ${n} of ${waiters} requests came to wait on the held row`);
      await Bun.sleep(10);
    }
    await tx.unsafe(end);
    return await racing;
  } finally {
    tx.release();
  }
}

describe("two nodes on one database", () => {
  test("two refreshes with the same token at once: exactly one rotates it, and the reuse revokes the session", async () => {
    const user = await registerUser(a, "racer");
    const hash = hashOpaqueToken(user.refreshToken);
    const [first, second] = await whileHeld(
      (tx) => tx`SELECT 1 FROM refresh_tokens WHERE token_hash = ${hash} FOR UPDATE`,
      () => Promise.all([a.post("/v1/auth/refresh", { refresh_token: user.refreshToken }), b.post("/v1/auth/refresh", { refresh_token: user.refreshToken })]),
      2,
      "COMMIT",
    );
    expect([first.status, second.status].sort()).toEqual([200, 401]);
    const loser = first.status === 401 ? first : second;
    expect(loser.body.code).toBe("unauthorized");
    expect(loser.body.detail).toMatch(/already used/);
    // The reuse revoked the family: the winner's new pair is dead too, on either node.
    const winner = (first.status === 200 ? first : second).body;
    expect((await b.post("/v1/auth/refresh", { refresh_token: winner.refresh_token })).status).toBe(401);
    expect((await a.get("/v1/auth/me", { token: winner.access_token })).status).toBe(401);
    const [session] = await holder`SELECT revoke_reason FROM sessions WHERE user_id = ${user.userId}`;
    expect(session.revoke_reason).toBe("refresh_token_reuse");
  }, 30_000);

  test("two POSTs with one Idempotency-Key at once: one agent is created; the other request replays it or is told it is in flight", async () => {
    const user = await registerUser(a, "idem");
    const key = await createKey(a, user.token, "write");
    const scope = `${user.workspaceId}:${key.id}`;
    const headers = { "idempotency-key": "race-1" };
    const body = { name: "Raced agent" };
    const [first, second] = await whileHeld(
      // A claim of the key in flight, never committed: both requests' claims wait on it, then meet each other.
      (tx) => tx`INSERT INTO idempotency_keys (scope, key, request_hash, created_at, expires_at) VALUES (${scope}, ${"race-1"}, ${"held"}, ${0}, ${0})`,
      () => Promise.all([a.post("/v1/agents", body, { token: key.secret, headers }), b.post("/v1/agents", body, { token: key.secret, headers })]),
      2,
      "ROLLBACK",
    );
    const statuses = [first.status, second.status].sort();
    expect(statuses[0]).toBe(201);
    const created = first.status === 201 && first.headers.get("idempotent-replayed") !== "true" ? first : second;
    const other = created === first ? second : first;
    if (other.status === 201) {
      expect(other.headers.get("idempotent-replayed")).toBe("true");
      expect(other.body.id).toBe(created.body.id);
    } else {
      expect(other.status).toBe(409);
      expect(other.body.code).toBe("idempotency_in_progress");
    }
    const [{ n }] = await holder`SELECT count(*)::int AS n FROM agents WHERE workspace_id = ${user.workspaceId} AND name = ${"Raced agent"}`;
    expect(n).toBe(1);
    // Once settled, the key replays the one agent on either node.
    const again = await b.post("/v1/agents", body, { token: key.secret, headers });
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(created.body.id);
  }, 30_000);
});
