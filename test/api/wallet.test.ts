// The wallet (135, 136), pricing (142, 151) and the operator's credit to a tenant (150).
import { describe, expect, test } from "bun:test";
import { appendEntry, walletOf } from "../../src/modules/wallet/ledger.ts";
import { createKey, registerOperator, registerUser, serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("wallet");
const opts = () => ({ token: s.user.token });
const USD = 1_000_000;

const lines = (inbound: number, outbound: number) => ({ inbound, outbound });
function priceList(rate = 20_000) {
  return {
    per_minute: {
      telephony: { simulated: lines(rate, rate), sip: lines(5_000, 8_000), twilio: lines(13_000, 14_000), telnyx: lines(10_000, 11_000) },
      browser_voice: 4_000,
      speech: { builtin: 0, provider: 15_000 },
      llm: { builtin: 0, provider: 30_000 },
    },
    number_monthly: { simulated: 0, sip: 500_000, twilio: 1_150_000, telnyx: 1_000_000 },
  };
}

describe("the wallet", () => {
  test("a new workspace has an empty wallet in the instance currency", async () => {
    const res = await s.server.api.get("/v1/wallet", opts());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: "wallet", workspace_id: s.user.workspaceId, currency: "USD", balance: 0, balance_formatted: "0.00" });
    // No Stripe on this instance: top-ups are requests the operator settles (the dashboard offers no card).
    expect(res.body.card_payments).toBe(false);
  });

  test("the ledger appends: the cached balance moves with each entry, and a repeated dedupe key charges once", () => {
    const ctx = s.server.ctx;
    const other = "ws_ledger_test";
    ctx.sqlite.prepare("INSERT INTO workspaces (id, name, timezone, default_language, is_operator, created_at, updated_at) VALUES (?, 'L', 'UTC', 'en-US', 0, 0, 0)").run(other);
    appendEntry(ctx, { workspaceId: other, amount: 5 * USD, cause: "operator_credit" });
    const first = appendEntry(ctx, { workspaceId: other, amount: -1_250_000, cause: "call_usage", category: "telephony.simulated.outbound", refType: "call", refId: "call_1", dedupe: "call_1:telephony" });
    const again = appendEntry(ctx, { workspaceId: other, amount: -1_250_000, cause: "call_usage", category: "telephony.simulated.outbound", refType: "call", refId: "call_1", dedupe: "call_1:telephony" });
    expect(again).toEqual({ entry: first.entry, duplicate: true });
    expect(first.entry.balanceAfter).toBe(3_750_000);
    expect(walletOf(ctx, other).balance).toBe(3_750_000);
    const sum = ctx.sqlite.prepare("SELECT sum(amount) AS total, count(*) AS n FROM ledger_entries WHERE workspace_id = ?").get(other) as { total: number; n: number };
    expect(sum).toEqual({ total: 3_750_000, n: 2 });
  });

  test("usage: spend by UTC day, by agent and by category, with the seconds it paid for; credits are not spend", async () => {
    const user = await registerUser(s.server.api, "usage");
    const ctx = s.server.ctx;
    const day = Date.UTC(2026, 10, 20, 12);
    s.server.clock.set(day);
    appendEntry(ctx, { workspaceId: user.workspaceId, amount: 10 * USD, cause: "operator_credit" });
    appendEntry(ctx, { workspaceId: user.workspaceId, amount: -200_000, cause: "call_usage", category: "telephony.simulated.outbound", agentId: "agent_a", quantity: 60 });
    appendEntry(ctx, { workspaceId: user.workspaceId, amount: -300_000, cause: "call_usage", category: "llm.provider", agentId: "agent_a", quantity: 60 });
    s.server.clock.set(day + 86_400_000);
    appendEntry(ctx, { workspaceId: user.workspaceId, amount: -100_000, cause: "call_usage", category: "telephony.simulated.outbound", agentId: "agent_b", quantity: 30 });
    const usage = (await s.server.api.get(`/v1/wallet/usage?from=2026-11-20T00:00:00Z&to=2026-11-22T00:00:00Z`, { token: user.token })).body;
    expect(usage).toMatchObject({ object: "wallet_usage", currency: "USD", total: 600_000 });
    expect(usage.by_day).toEqual([
      { day: "2026-11-20", amount: 500_000 },
      { day: "2026-11-21", amount: 100_000 },
    ]);
    expect(usage.by_agent).toEqual([
      { agent_id: "agent_a", amount: 500_000 },
      { agent_id: "agent_b", amount: 100_000 },
    ]);
    expect(usage.by_category).toEqual([
      { category: "llm.provider", amount: 300_000, seconds: 60 },
      { category: "telephony.simulated.outbound", amount: 300_000, seconds: 90 },
    ]); // equal amounts by name
    // Another workspace sees none of it.
    expect((await s.server.api.get(`/v1/wallet/usage?from=2026-11-20T00:00:00Z&to=2026-11-22T00:00:00Z`, opts())).body.total).toBe(0);
    s.server.clock.set(Date.now());
  });

  test("usage: a bad period names the field", async () => {
    const backwards = await s.server.api.get("/v1/wallet/usage?from=2026-11-22T00:00:00Z&to=2026-11-20T00:00:00Z", opts());
    expect(backwards.status).toBe(422);
    expect(backwards.body.errors[0].field).toBe("from");
    expect((await s.server.api.get("/v1/wallet/usage?from=yesterday", opts())).status).toBe(422);
  });
});

describe("pricing", () => {
  test("until the operator sets prices everything is free, and the public can see so", async () => {
    const res = await s.server.api.get("/v1/pricing");
    expect(res.status).toBe(200);
    expect(res.body.current).toMatchObject({ object: "price_list", id: null, currency: "USD", effective_at: null });
    expect(res.body.current.per_minute.telephony.twilio).toEqual({ inbound: 0, outbound: 0 });
    expect(res.body.upcoming).toEqual([]);
  });

  test("the operator sets prices now and for later; a later list takes effect at its time; the older ones stay", async () => {
    const operator = await registerOperator(s.server);
    const now = await s.server.api.put("/v1/admin/pricing", priceList(20_000), { token: operator.token });
    expect(now.status).toBe(200);
    const currentId: string = now.body.current.id;
    expect(currentId).toMatch(/^prc_/);
    expect(now.body.current).toMatchObject({ object: "price_list", currency: "USD" });
    expect(now.body.current.per_minute.telephony.simulated).toEqual({ inbound: 20_000, outbound: 20_000 });

    const at = new Date(s.server.clock.now() + 3_600_000).toISOString();
    const later = await s.server.api.put("/v1/admin/pricing", { ...priceList(30_000), effective_at: at }, { token: operator.token });
    expect(later.body.current.id).toBe(currentId);
    expect(later.body.upcoming).toHaveLength(1);
    expect(later.body.upcoming[0]).toMatchObject({ effective_at: at });
    s.server.clock.advance(3_600_000);
    const then = (await s.server.api.get("/v1/pricing")).body;
    expect(then.current.per_minute.telephony.simulated).toEqual({ inbound: 30_000, outbound: 30_000 });
    expect(then.upcoming).toEqual([]);
    expect((s.server.ctx.sqlite.prepare("SELECT count(*) AS n FROM price_lists").get() as { n: number }).n).toBe(2);
    s.server.clock.advance(-3_600_000); // back, so the other tests' access tokens are still fresh
  });

  test("a price list is complete, whole, non-negative and never backdated; each mistake names its field", async () => {
    const operator = await registerOperator(s.server, "pricer");
    const put = (body: unknown) => s.server.api.put("/v1/admin/pricing", body, { token: operator.token });
    const missing = priceList() as any;
    delete missing.per_minute.telephony.twilio.inbound;
    const cases: [unknown, string][] = [
      [missing, "per_minute.telephony.twilio.inbound"],
      [{ ...priceList(), number_monthly: { ...priceList().number_monthly, sip: -1 } }, "number_monthly.sip"],
      [{ ...priceList(), per_minute: { ...priceList().per_minute, browser_voice: 1.5 } }, "per_minute.browser_voice"],
      [{ ...priceList(), effective_at: new Date(s.server.clock.now() - 86_400_000).toISOString() }, "effective_at"],
      [{ ...priceList(), surprise: 1 }, "surprise"],
    ];
    for (const [body, field] of cases) {
      const res = await put(body);
      expect(`${res.status} ${res.body.errors?.map((e: any) => e.field).join(",")}`).toBe(`422 ${field}`);
    }
  });

  test("only the operator's admins set prices", async () => {
    expect((await s.server.api.put("/v1/admin/pricing", priceList(), opts())).status).toBe(403);
    const key = await createKey(s.server.api, s.user.token, "admin");
    expect((await s.server.api.put("/v1/admin/pricing", priceList(), { token: key.secret })).body.code).toBe("forbidden");
  });
});

describe("the operator's credit to a tenant", () => {
  test("a credit and a debit are ledger entries with the operator's note; a debit below zero is 402; the tenant sees the balance", async () => {
    const operator = await registerOperator(s.server, "billing");
    const tenant = await registerUser(s.server.api, "tenant");
    const credit = (amount: number, note = "invoice 2026-114") => s.server.api.post(`/v1/admin/workspaces/${tenant.workspaceId}/credit`, { amount, note }, { token: operator.token });
    const first = await credit(25 * USD);
    expect(first.status).toBe(200);
    expect(first.body.entry).toMatchObject({ object: "ledger_entry", amount: 25 * USD, balance_after: 25 * USD, cause: "operator_credit", ref_type: "payment", ref_id: first.body.payment.id, note: "invoice 2026-114" });
    expect(first.body.payment).toMatchObject({ provider: "offline", kind: "credit", status: "succeeded", workspace_id: tenant.workspaceId });
    expect(first.body.wallet).toMatchObject({ balance: 25 * USD, balance_formatted: "25.00" });
    const debit = await credit(-2_500_000, "refund of a test charge");
    expect(debit.body.entry).toMatchObject({ cause: "operator_debit", amount: -2_500_000, balance_after: 22_500_000 });
    const tooMuch = await credit(-23 * USD);
    expect(tooMuch.status).toBe(402);
    expect(tooMuch.body.code).toBe("insufficient_funds");
    expect((await s.server.api.get("/v1/wallet", { token: tenant.token })).body).toMatchObject({ balance: 22_500_000, balance_formatted: "22.50" });
  });

  test("bad input names the field; an unknown workspace is 404; tenants cannot credit themselves", async () => {
    const operator = await registerOperator(s.server, "billing2");
    const post = (id: string, body: unknown, token = operator.token) => s.server.api.post(`/v1/admin/workspaces/${id}/credit`, body, { token });
    expect((await post(s.user.workspaceId, { amount: 0, note: "x" })).body.errors[0].field).toBe("amount");
    expect((await post(s.user.workspaceId, { amount: 1.5, note: "x" })).body.errors[0].field).toBe("amount");
    expect((await post(s.user.workspaceId, { amount: 100 })).body.errors[0].field).toBe("note");
    expect((await post("ws_nope", { amount: 100, note: "x" })).status).toBe(404);
    const self = await post(s.user.workspaceId, { amount: 100, note: "free money" }, s.user.token);
    expect(self.status).toBe(403);
    expect((await s.server.api.get("/v1/wallet", opts())).body.balance).toBe(0);
  });
});
