// Calls paid from the wallet: settled at the prices in force when answered, refused (402) when the
// wallet cannot pay a minute, ended insufficient_funds when it runs out, and never charged twice.
import { describe, expect, test } from "bun:test";
import { holdWriteLock } from "../helpers/write-lock.ts";
import { appendEntry, walletOf } from "../../src/modules/wallet/ledger.ts";
import { settleCall } from "../../src/modules/wallet/metering.ts";
import { endOrphanedCalls } from "../../src/modules/calls/lifecycle.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { prices, tenantWithAgent, USD } from "../helpers/metering.ts";
import { ShiftedClock, sqliteOnly, startTestServer } from "../helpers/server.ts";

describe("metered calls", () => {
  test("a call is charged per second of talk time, per category, at the prices in force; the call and the usage show it", async () => {
    const server = await startTestServer();
    try {
      const { operator, tenant, key, agent } = await tenantWithAgent(server, 10 * USD);
      expect((await server.api.put("/v1/admin/pricing", prices(60_000, 6_000), { token: operator.token })).status).toBe(200);
      const placed = await server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { lines: ["What are your opening hours?", "Thanks, goodbye"], recognition: "simulated" } }, { token: key });
      expect(placed.status).toBe(201);
      const ended = await waitForCall(server.api, key, placed.body.id);
      expect(ended.status).toBe("completed");
      const seconds = Math.ceil(ended.duration_ms / 1000);
      const line = Math.ceil((60_000 * seconds) / 60);
      const speech = Math.ceil((6_000 * seconds) / 60);
      expect(ended.cost).toEqual({
        currency: "USD",
        total: line + speech,
        breakdown: [
          { category: "speech.builtin", amount: speech, seconds },
          { category: "telephony.simulated.outbound", amount: line, seconds },
        ],
      });
      expect((await server.api.get("/v1/wallet", { token: key })).body.balance).toBe(10 * USD - line - speech);
      const usage = (await server.api.get(`/v1/wallet/usage?to=${new Date(server.clock.now() + 60_000).toISOString()}`, { token: key })).body;
      expect(usage.total).toBe(line + speech);
      expect(usage.by_agent).toEqual([{ agent_id: agent.id, amount: line + speech }]);
      // The list shows the same cost.
      expect((await server.api.get("/v1/calls", { token: key })).body.data[0].cost.total).toBe(line + speech);
      // A campaign's stats and results carry what its calls cost.
      const campaign = (await server.api.post("/v1/campaigns", { name: "Priced", agent_id: agent.id, window: null, retry: { on: [], max_attempts: 1, delay_minutes: 1 }, simulation: { lines: ["Thanks, goodbye"], recognition: "simulated" } }, { token: key })).body;
      await fetch(`${server.url}/v1/campaigns/${campaign.id}/upload`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" }, body: "phone\n+12125550150\n" });
      await server.api.post(`/v1/campaigns/${campaign.id}/start`, undefined, { token: key });
      const deadline = Date.now() + 40_000;
      let stats = (await server.api.get(`/v1/campaigns/${campaign.id}/stats`, { token: key })).body;
      while (stats.status !== "completed" && Date.now() < deadline) {
        await Bun.sleep(250);
        stats = (await server.api.get(`/v1/campaigns/${campaign.id}/stats`, { token: key })).body;
      }
      const campaignCalls = (await server.api.get(`/v1/calls?campaign_id=${campaign.id}`, { token: key })).body.data;
      expect(stats.cost).toBe(campaignCalls.reduce((sum: number, c: any) => sum + c.cost.total, 0));
      expect(stats.cost).toBeGreaterThan(0);
      const csv = await (await fetch(`${server.url}/v1/campaigns/${campaign.id}/results`, { headers: { authorization: `Bearer ${key}` } })).text();
      expect(csv.split(/\r?\n/)[1]).toEndWith(`,${stats.cost}`);
      expect(tenant.workspaceId).toBeTruthy();
    } finally {
      await server.stop();
    }
  }, 120_000);

  test("a wallet that cannot pay a minute gets 402 before anything is dialed, and its campaign pauses saying so; a free instance needs no balance", async () => {
    const server = await startTestServer();
    try {
      const { operator, key, agent } = await tenantWithAgent(server, 0);
      // Free until the operator sets prices.
      const free = await server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550101" }, { token: key });
      expect(free.status).toBe(201);
      await server.api.put("/v1/admin/pricing", prices(60_000), { token: operator.token });
      const before = server.ctx.sqlite.prepare("SELECT count(*) AS n FROM calls").get() as { n: number };
      const refused = await server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150" }, { token: key });
      expect(`${refused.status} ${refused.body.code}`).toBe("402 insufficient_funds");
      expect(refused.body.detail).toContain("0.06");
      expect((server.ctx.sqlite.prepare("SELECT count(*) AS n FROM calls").get() as { n: number }).n).toBe(before.n);

      const campaign = (await server.api.post("/v1/campaigns", { name: "Unpaid", agent_id: agent.id, window: null }, { token: key })).body;
      await fetch(`${server.url}/v1/campaigns/${campaign.id}/upload`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "text/csv" }, body: "phone\n+12125550150\n" });
      expect((await server.api.post(`/v1/campaigns/${campaign.id}/start`, undefined, { token: key })).status).toBe(200);
      const deadline = Date.now() + 10_000;
      let state = (await server.api.get(`/v1/campaigns/${campaign.id}`, { token: key })).body;
      while (state.status !== "paused" && Date.now() < deadline) {
        await Bun.sleep(100);
        state = (await server.api.get(`/v1/campaigns/${campaign.id}`, { token: key })).body;
      }
      expect(state.status).toBe("paused");
      expect(state.last_error).toContain("top up");
    } finally {
      await server.stop();
    }
  }, 30_000);

  test("a call that runs the wallet out says the operator's line and ends insufficient_funds; the overdraw is at most one interval", async () => {
    const server = await startTestServer({ clock: new ShiftedClock(), settings: { settlementSeconds: "1", insufficientFundsMessage: "Your credit has run out. Goodbye." } });
    try {
      // 0.6 per minute: 10,000 micro-units a second. A call needs a minute's worth to start...
      const { operator, tenant, key, agent } = await tenantWithAgent(server, 600_000);
      await server.api.put("/v1/admin/pricing", prices(600_000), { token: operator.token });
      const placed = await server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { behaviour: "silent" } }, { token: key });
      expect(placed.status).toBe(201);
      await waitForCall(server.api, key, placed.body.id, (c) => c.status === "in_progress", 20_000);
      // ...then the operator takes most of it back, leaving about five seconds.
      const balance0 = (await server.api.get("/v1/wallet", { token: key })).body.balance;
      await server.api.post(`/v1/admin/workspaces/${tenant.workspaceId}/credit`, { amount: -(balance0 - 50_000), note: "correction" }, { token: operator.token });
      const ended = await waitForCall(server.api, key, placed.body.id, (c) => !["queued", "ringing", "in_progress"].includes(c.status), 40_000);
      expect(ended).toMatchObject({ status: "completed", end_reason: "insufficient_funds" });
      const events = (await server.api.get(`/v1/calls/${placed.body.id}/events`, { token: key })).body.data;
      expect(events.some((e: any) => e.type === "say" && e.data.text === "Your credit has run out. Goodbye." && e.data.reason === "insufficient_funds")).toBe(true);
      const balance = (await server.api.get("/v1/wallet", { token: key })).body.balance;
      expect(balance).toBeLessThanOrEqual(0);
      expect(balance).toBeGreaterThanOrEqual(-10_000); // one 1-second interval at 10,000 a second
    } finally {
      await server.stop();
    }
  }, 60_000);

  // PostgreSQL has no database-wide write lock: test/postgres/metering-lock.test.ts holds a wallet's row lock instead.
  sqliteOnly("a pass the database refuses (another connection holds the write lock) is logged; the call goes on and its every second is charged", async () => {
    const server = await startTestServer({ clock: new ShiftedClock(), settings: { settlementSeconds: "1" } });
    try {
      const { operator, key, agent } = await tenantWithAgent(server, 10 * USD);
      await server.api.put("/v1/admin/pricing", prices(600_000), { token: operator.token }); // 10,000 a second
      const placed = await server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { behaviour: "silent" } }, { token: key });
      await waitForCall(server.api, key, placed.body.id, (c) => c.status === "in_progress", 20_000);
      const lock = holdWriteLock(server.ctx);
      await Bun.sleep(2500);
      lock.release();
      expect(server.logs.filter((line) => line.includes("metering pass failed") && line.includes("database is locked")).length).toBeGreaterThanOrEqual(1);
      expect((await server.api.post(`/v1/calls/${placed.body.id}/hangup`, {}, { token: key })).status).toBe(202);
      const ended = await waitForCall(server.api, key, placed.body.id, (c) => !["queued", "ringing", "in_progress"].includes(c.status), 20_000);
      expect(ended.end_reason).toBe("agent_hangup");
      expect(ended.cost.total).toBe(Math.ceil(ended.duration_ms / 1000) * 10_000);
    } finally {
      await server.stop();
    }
  }, 60_000);

  test("settling is idempotent: again at the same second charges nothing; a call a crashed run left live is charged once when ended at restart, not for the outage", async () => {
    const server = await startTestServer();
    try {
      const { operator, tenant } = await tenantWithAgent(server, 5 * USD);
      await server.api.put("/v1/admin/pricing", prices(60_000), { token: operator.token });
      const ctx = server.ctx;
      const now = server.clock.now();
      ctx.sqlite
        .prepare("INSERT INTO calls (id, workspace_id, agent_id, agent_version, direction, carrier, status, variables, metadata, created_at, answered_at, updated_at) VALUES ('call_orphan', ?, 'agent_x', 1, 'outbound', 'simulated', 'in_progress', '{}', '{}', ?, ?, ?)")
        .run(tenant.workspaceId, now, now, now);
      const call = { id: "call_orphan", workspaceId: tenant.workspaceId, agentId: "agent_x", carrier: "simulated", direction: "outbound" as const, answeredAt: now };
      const engines = { speech: "builtin" as const, llm: "builtin" as const };
      expect(settleCall(ctx, call, now + 30_000, engines)).toBe(30_000);
      expect(settleCall(ctx, call, now + 30_000, engines)).toBe(0);
      expect(settleCall(ctx, call, now + 45_500, engines)).toBe(16_000); // 46 s in all, rounded up to the second
      server.clock.advance(60_000);
      // The restart's sweep ends it (no process holds its audio), as long as it was charged: the outage is not talk time.
      expect(endOrphanedCalls(ctx, () => false)).toBe(1);
      expect(endOrphanedCalls(ctx, () => false)).toBe(0);
      expect(walletOf(ctx, tenant.workspaceId).balance).toBe(5 * USD - 46_000);
      expect(ctx.sqlite.prepare("SELECT duration_ms FROM calls WHERE id = 'call_orphan'").get()).toEqual({ duration_ms: 46_000 });
      const entries = ctx.sqlite.prepare("SELECT count(*) AS n, -sum(amount) AS total FROM ledger_entries WHERE ref_id = 'call_orphan'").get();
      expect(entries).toEqual({ n: 2, total: 46_000 });
      expect(appendEntry).toBeDefined();
    } finally {
      await server.stop();
    }
  });
});
