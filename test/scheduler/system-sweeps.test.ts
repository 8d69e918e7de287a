import { expect, test } from "bun:test";
import { checkpoint, pruneExpiredRows, startSystemSweeps } from "../../src/scheduler/system-sweeps.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { createTestContext, sqliteOnly } from "../helpers/server.ts";

const s = serverWithUser();

test("expired idempotency keys, reset tokens and long-ended sessions are pruned; live ones stay", async () => {
  const { api, ctx, clock } = s.server;
  await api.post("/v1/api-keys", { name: "k", scope: "write" }, { token: s.user.token, headers: { "idempotency-key": "old" } });
  await api.post("/v1/auth/password/forgot", { email: s.user.email });
  const extra = await api.post("/v1/auth/login", { email: s.user.email, password: s.user.password });
  await api.post("/v1/auth/logout", undefined, { token: extra.body.access_token });
  const count = (table: string) => (ctx.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;

  expect(pruneExpiredRows(ctx)).toEqual({ idempotencyKeys: 0, passwordResets: 0, sessions: 0, jobs: 0, rateCounters: 0 });
  clock.advance(31 * 24 * 60 * 60 * 1000);
  // A cluster's rate windows: older than 2 minutes go, the last two minutes' stay.
  const minute = Math.floor(clock.now() / 60_000) * 60_000;
  const counter = ctx.sqlite.prepare("INSERT INTO rate_counters (key, window_start, count) VALUES (?, ?, 1)");
  for (const start of [minute - 3 * 60_000, minute - 60_000, minute]) counter.run("cred:k", start);
  // (On PostgreSQL the requests above were counted there too, a month ago.)
  const stale = (ctx.sqlite.prepare("SELECT count(*) AS n FROM rate_counters WHERE window_start < ?").get(minute - 2 * 60_000) as { n: number }).n;
  const pruned = pruneExpiredRows(ctx);
  expect(pruned.rateCounters).toBe(stale);
  expect(stale).toBeGreaterThanOrEqual(1);
  expect(ctx.sqlite.prepare("SELECT window_start FROM rate_counters ORDER BY window_start").pluck().all()).toEqual([minute - 60_000, minute]);
  expect(pruned.idempotencyKeys).toBe(1);
  expect(pruned.passwordResets).toBe(1);
  expect(pruned.sessions).toBeGreaterThanOrEqual(1);
  expect(count("idempotency_keys")).toBe(0);
  // Deleting a session takes its refresh tokens with it.
  expect((ctx.sqlite.prepare("SELECT count(*) AS n FROM refresh_tokens WHERE session_id NOT IN (SELECT id FROM sessions)").get() as { n: number }).n).toBe(0);
});

sqliteOnly("checkpoint empties the WAL", () => {
  checkpoint(s.server.ctx);
  const [row] = s.server.ctx.sqlite.pragma("wal_checkpoint(PASSIVE)") as { busy: number; log: number }[];
  expect(row.log).toBe(0);
});

test("a sweep that throws or rejects is logged and does not stop the others", async () => {
  const env = createTestContext();
  try {
    let after = 0;
    const sweeps = startSystemSweeps(env.ctx, [
      { name: "throws", atStart: true, run: () => { throw new Error("bang"); } },
      { name: "rejects", atStart: true, run: async () => { await Bun.sleep(1); throw new Error("boom"); } },
      { name: "after", atStart: true, run: () => void after++ },
    ]);
    await Bun.sleep(20);
    sweeps.stop();
    const failures = env.logs.filter((line) => line.includes("system sweep failed"));
    expect(failures.some((line) => line.includes("throws") && line.includes("bang"))).toBe(true);
    expect(failures.some((line) => line.includes("rejects") && line.includes("boom"))).toBe(true);
    expect(after).toBe(1);
  } finally {
    env.close();
  }
});
