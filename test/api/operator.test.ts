// The operator's console (149): every tenant workspace with its members, balance and recent usage.
import { describe, expect, test } from "bun:test";
import { appendEntry } from "../../src/modules/wallet/ledger.ts";
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
