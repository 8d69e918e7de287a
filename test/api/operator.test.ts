// The operator's console (149): every tenant workspace with its members, balance and recent usage; suspending one.
import { describe, expect, test } from "bun:test";
import { appendEntry } from "../../src/modules/wallet/ledger.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { createKey, registerOperator, registerUser } from "../helpers/fixtures.ts";
import { startTestServer } from "../helpers/server.ts";

describe("GET /v1/admin/workspaces", () => {
  test("lists every workspace newest first with members, balance and 30 days of calls and spend; pages with a cursor", async () => {
    const server = await startTestServer();
    try {
      const operator = await registerOperator(server);
      server.clock.advance(1_000); // distinct creation times: the list is newest first
      const acme = await registerUser(server.api, "acme");
      server.clock.advance(1_000);
      const globex = await registerUser(server.api, "globex");
      await server.api.post(`/v1/admin/workspaces/${acme.workspaceId}/credit`, { amount: 20_000_000, note: "prepaid" }, { token: operator.token });
      appendEntry(server.ctx, { workspaceId: acme.workspaceId, amount: -1_500_000, cause: "call_usage", category: "telephony.simulated.outbound", quantity: 60 });
      const now = server.clock.now();
      server.ctx.sqlite
        .prepare("INSERT INTO calls (id, workspace_id, agent_id, agent_version, direction, carrier, status, variables, metadata, created_at, duration_ms, updated_at) VALUES ('call_x', ?, 'agent_x', 1, 'outbound', 'simulated', 'completed', '{}', '{}', ?, 61000, ?)")
        .run(acme.workspaceId, now, now);
      const list = await server.api.get("/v1/admin/workspaces", { token: operator.token });
      expect(list.status).toBe(200);
      expect(list.body.data.map((t: any) => t.id)).toEqual([globex.workspaceId, acme.workspaceId, operator.workspaceId]);
      expect(list.body.data[1]).toMatchObject({ object: "tenant", name: expect.any(String), is_operator: false, members: 1, currency: "USD", balance: 18_500_000, usage_30d: { calls: 1, seconds: 61, spend: 1_500_000 } });
      expect(list.body.data[2]).toMatchObject({ is_operator: true, balance: 0, usage_30d: { calls: 0, seconds: 0, spend: 0 } });

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: any = (await server.api.get(`/v1/admin/workspaces?limit=1${cursor ? `&cursor=${cursor}` : ""}`, { token: operator.token })).body;
        seen.push(...page.data.map((t: any) => t.id));
        cursor = page.next_cursor;
      } while (cursor);
      expect(seen).toEqual(list.body.data.map((t: any) => t.id));
    } finally {
      await server.stop();
    }
  });

  test("a tenant's owner and its admin key are refused", async () => {
    const server = await startTestServer();
    try {
      const tenant = await registerUser(server.api, "tenant");
      const key = await createKey(server.api, tenant.token, "admin");
      for (const token of [tenant.token, key.secret]) {
        const res = await server.api.get("/v1/admin/workspaces", { token });
        expect(`${res.status} ${res.body.code}`).toBe("403 forbidden");
      }
    } finally {
      await server.stop();
    }
  });
});

describe("suspending a tenant", () => {
  test("its keys and sessions get 403 workspace_suspended at once, its live call ends, nothing new starts; resuming restores it", async () => {
    const server = await startTestServer();
    try {
      const operator = await registerOperator(server);
      const tenant = await registerUser(server.api, "suspended");
      const key = (await createKey(server.api, tenant.token, "write")).secret;
      const agent = (await server.api.post("/v1/agents", { name: "Busy line", first_message: "Hello there." }, { token: key })).body;
      const number = (await server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, { token: key })).body;
      await server.api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, { token: key });
      const widget = (await server.api.post("/v1/widgets", { agent_id: agent.id, name: "Shop", allowed_origins: ["https://shop.example"] }, { token: key })).body;
      expect((await server.api.get(`/v1/widgets/${widget.id}/config`, { headers: { origin: "https://shop.example" } })).status).toBe(200);
      const call = (await server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { behaviour: "silent" } }, { token: key })).body;
      await waitForCall(server.api, key, call.id, (c) => c.status === "in_progress", 20_000);

      const suspended = await server.api.post(`/v1/admin/workspaces/${tenant.workspaceId}/suspend`, { reason: "unpaid invoice 2026-114" }, { token: operator.token });
      expect(suspended.status).toBe(200);
      expect(suspended.body).toMatchObject({ id: tenant.workspaceId, suspended_reason: "unpaid invoice 2026-114", suspended_at: expect.any(String) });
      for (const token of [key, tenant.token]) {
        const refused = await server.api.get("/v1/agents", { token });
        expect(`${refused.status} ${refused.body.code}`).toBe("403 workspace_suspended");
      }
      expect((await server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150" }, { token: key })).body.code).toBe("workspace_suspended");
      // Its widget's public routes stop too.
      const widgetConfig = await server.api.get(`/v1/widgets/${widget.id}/config`, { headers: { origin: "https://shop.example" } });
      expect(`${widgetConfig.status} ${widgetConfig.body.code}`).toBe("403 workspace_suspended");
      // The live call is ended by the suspension itself (read with the operator's view of the database).
      const ended = await until(() => server.ctx.sqlite.prepare("SELECT status, end_reason FROM calls WHERE id = ?").get(call.id) as { status: string; end_reason: string | null }, (row) => row.status !== "in_progress");
      expect(ended).toEqual({ status: "completed", end_reason: "workspace_suspended" });
      const listed = (await server.api.get("/v1/admin/workspaces", { token: operator.token })).body.data.find((t: any) => t.id === tenant.workspaceId);
      expect(listed.suspended_reason).toBe("unpaid invoice 2026-114");

      const resumed = await server.api.post(`/v1/admin/workspaces/${tenant.workspaceId}/resume`, undefined, { token: operator.token });
      expect(resumed.body).toMatchObject({ suspended_at: null, suspended_reason: null });
      expect((await server.api.get("/v1/agents", { token: key })).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 60_000);

  test("the operator's own workspace cannot be suspended; a tenant cannot suspend anyone; bad input names the field", async () => {
    const server = await startTestServer();
    try {
      const operator = await registerOperator(server);
      const tenant = await registerUser(server.api, "tenant");
      const own = await server.api.post(`/v1/admin/workspaces/${operator.workspaceId}/suspend`, { reason: "oops" }, { token: operator.token });
      expect(`${own.status} ${own.body.code}`).toBe("409 invalid_state");
      expect((await server.api.post(`/v1/admin/workspaces/${tenant.workspaceId}/suspend`, {}, { token: operator.token })).body.errors[0].field).toBe("reason");
      expect((await server.api.post("/v1/admin/workspaces/ws_nope/suspend", { reason: "x" }, { token: operator.token })).status).toBe(404);
      const self = await server.api.post(`/v1/admin/workspaces/${operator.workspaceId}/suspend`, { reason: "x" }, { token: tenant.token });
      expect(`${self.status} ${self.body.code}`).toBe("403 forbidden");
    } finally {
      await server.stop();
    }
  });
});

async function until<T>(read: () => T, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (done(value) || Date.now() > deadline) return value;
    await Bun.sleep(50);
  }
}
