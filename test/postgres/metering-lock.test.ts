// PostgreSQL's counterpart of metering.test.ts's refused pass: no database-wide write lock, but another
// connection (another node, an operator's psql) holding the wallet's row lock. The server waits for it
// no longer than its lock timeout, logs the refused settlement, keeps the call going, and charges every
// second once the lock is gone; the rest of the pass is not lost with it.
import { expect, test } from "bun:test";
import { SQL } from "bun";
import { waitForCall } from "../helpers/call-api.ts";
import { prices, tenantWithAgent, USD } from "../helpers/metering.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { ShiftedClock, startTestServer } from "../helpers/server.ts";

test("a settlement refused by a row lock another connection holds is logged; the call goes on and its every second is charged", async () => {
  const url = freshDatabase();
  const server = await startTestServer({ clock: new ShiftedClock(), settings: { databaseUrl: url, settlementSeconds: "1", metricsListen: "127.0.0.1:0" } });
  const other = new SQL(url);
  try {
    const { operator, tenant, key, agent } = await tenantWithAgent(server, 10 * USD);
    await server.api.put("/v1/admin/pricing", prices(600_000), { token: operator.token }); // 10,000 a second
    const placed = await server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { behaviour: "silent" } }, { token: key });
    await waitForCall(server.api, key, placed.body.id, (c) => c.status === "in_progress", 20_000);
    // Another tenant's call, settled in the same passes: its wallet is not locked, so it goes on being charged.
    const bystander = await tenantWithAgent(server, 10 * USD, operator);
    const second = await server.api.post("/v1/calls/outbound", { agent_id: bystander.agent.id, to: "+12125550151", simulation: { behaviour: "silent" } }, { token: bystander.key });
    await waitForCall(server.api, bystander.key, second.body.id, (c) => c.status === "in_progress", 20_000);
    const spent = () => server.ctx.sqlite.prepare("SELECT count(*) AS n FROM ledger_entries WHERE ref_id = ?").get(second.body.id) as { n: number };
    server.ctx.sqlite.pragma("busy_timeout = 50"); // lock_timeout: the real 5 s would only make the test slow
    const holder = await other.reserve();
    await holder.unsafe("BEGIN");
    await holder.unsafe("SELECT balance FROM wallets WHERE workspace_id = $1 FOR UPDATE", [tenant.workspaceId]);
    const before = spent().n;
    await Bun.sleep(2500);
    expect(spent().n).toBeGreaterThanOrEqual(before + 1);
    await holder.unsafe("ROLLBACK");
    holder.release();
    expect(server.logs.filter((line) => line.includes("settling a live call failed") && line.includes("lock timeout")).length).toBeGreaterThanOrEqual(1);
    expect((await server.api.post(`/v1/calls/${placed.body.id}/hangup`, {}, { token: key })).status).toBe(202);
    const ended = await waitForCall(server.api, key, placed.body.id, (c) => !["queued", "ringing", "in_progress"].includes(c.status), 20_000);
    expect(ended.end_reason).toBe("agent_hangup");
    expect(ended.cost.total).toBe(Math.ceil(ended.duration_ms / 1000) * 10_000);
    await server.api.post(`/v1/calls/${second.body.id}/hangup`, {}, { token: bystander.key });
    const refusals = await (await fetch(server.metricsUrl!)).text();
    expect(refusals).toMatch(/parley_db_refusals_total\{site="metering",kind="busy"\} [1-9]/);
  } finally {
    await other.close();
    await server.stop();
  }
}, 60_000);
