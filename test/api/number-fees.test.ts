// Monthly number fees (issue 13): the first month paid with the purchase (402 before the carrier is
// asked when the wallet cannot pay it), each later calendar month charged once when it begins, at the
// price in force then, missed months included; releasing a number stops them.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chargeNumberFees, periodStart } from "../../src/modules/wallet/number-fees.ts";
import { createKey, registerOperator, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "../helpers/server.ts";
import { FakeTwilio } from "../helpers/twilio-server.ts";

const USD = 1_000_000;
/** Jan 31, noon UTC: the months after it end early (Feb 28, Apr 30) and find the 31st again (Mar 31). */
const T0 = Date.UTC(2027, 0, 31, 12);
const monthStart = (month: number) => periodStart(T0, month);
const lines = { inbound: 0, outbound: 0 };

function prices(monthly: Partial<Record<"simulated" | "sip" | "twilio" | "telnyx", number>>, effectiveAt?: number) {
  return {
    per_minute: { telephony: { simulated: lines, sip: lines, twilio: lines, telnyx: lines }, browser_voice: 0, speech: { builtin: 0, provider: 0 }, llm: { builtin: 0, provider: 0 } },
    number_monthly: { simulated: 0, sip: 0, twilio: 0, telnyx: 0, ...monthly },
    ...(effectiveAt === undefined ? {} : { effective_at: new Date(effectiveAt).toISOString() }),
  };
}

interface Tenant {
  server: TestServer;
  tenant: RegisteredUser;
  /** An API key: it does not expire as the clock moves on by months. */
  key: string;
  setPrices(body: ReturnType<typeof prices>): Promise<void>;
  credit(amount: number): Promise<void>;
  buy(body?: Record<string, unknown>): Promise<{ status: number; body: any }>;
  feeEntries(): { amount: number; cause: string; category: string; ref_type: string; ref_id: string; note: string; dedupe: string }[];
  balance(): Promise<number>;
}

async function tenantOn(options: TestServerOptions = {}): Promise<Tenant> {
  const server = await startTestServer({ startAt: T0, ...options });
  const operator = await registerOperator(server);
  const tenant = await registerUser(server.api, "numbers");
  const key = (await createKey(server.api, tenant.token, "write")).secret;
  // Signed in again once the clock has moved on: an access token from months ago has expired.
  let signedIn = { token: operator.token, at: server.clock.now() };
  const asOperator = async () => {
    if (server.clock.now() - signedIn.at > 60_000) signedIn = { token: (await server.api.post("/v1/auth/login", { email: operator.email, password: operator.password })).body.access_token, at: server.clock.now() };
    return { token: signedIn.token };
  };
  return {
    server,
    tenant,
    key,
    async setPrices(body) {
      const res = await server.api.put("/v1/admin/pricing", body, await asOperator());
      expect(res.status).toBe(200);
    },
    async credit(amount) {
      expect((await server.api.post(`/v1/admin/workspaces/${tenant.workspaceId}/credit`, { amount, note: "prepaid" }, await asOperator())).status).toBe(200);
    },
    buy: (body = { area_code: "415" }) => server.api.post("/v1/phone-numbers/buy", body, { token: key }),
    feeEntries: () =>
      server.ctx.sqlite.prepare("SELECT amount, cause, category, ref_type, ref_id, note, dedupe FROM ledger_entries WHERE workspace_id = ? AND cause = 'number_fee' ORDER BY created_at, length(dedupe), dedupe").all(tenant.workspaceId) as any[],
    balance: async () => (await server.api.get("/v1/wallet", { token: key })).body.balance,
  };
}

/** A fresh server (its clock at T0) for one test, stopped after it. */
async function withTenant(run: (t: Tenant) => Promise<void>): Promise<void> {
  const t = await tenantOn();
  try {
    await run(t);
  } finally {
    await t.server.stop();
  }
}

/** A number at 1 a month, bought from a wallet of 10. */
async function paidNumber(t: Tenant): Promise<string> {
  await t.setPrices(prices({ simulated: USD }));
  await t.credit(10 * USD);
  return (await t.buy()).body.id as string;
}

function feeRow(t: Tenant, phoneNumberId: string) {
  return t.server.ctx.sqlite.prepare("SELECT period, anchor_at, next_at FROM number_fees WHERE phone_number_id = ?").get(phoneNumberId) as { period: number; anchor_at: number; next_at: number } | undefined;
}

function ledgerSum(t: Tenant): number {
  return (t.server.ctx.sqlite.prepare("SELECT coalesce(sum(amount), 0) AS total FROM ledger_entries WHERE workspace_id = ?").get(t.tenant.workspaceId) as { total: number }).total;
}

describe("monthly number fees", () => {
  test("periods are calendar months from the purchase, on its day or the month's last, UTC", () => {
    expect([0, 1, 2, 3, 12, 13].map((k) => new Date(monthStart(k)).toISOString())).toEqual([
      "2027-01-31T12:00:00.000Z",
      "2027-02-28T12:00:00.000Z",
      "2027-03-31T12:00:00.000Z",
      "2027-04-30T12:00:00.000Z",
      "2028-01-31T12:00:00.000Z",
      "2028-02-29T12:00:00.000Z",
    ]);
  });

  test("buying or importing a number charges its first month at once, at the price in force; usage shows it by category", async () => {
    await withTenant(async (t) => {
      await t.setPrices(prices({ simulated: 1_500_000 }));
      await t.credit(10 * USD);
      const bought = await t.buy();
      expect(bought.status).toBe(201);
      t.server.clock.advance(1000);
      const imported = await t.server.api.post("/v1/phone-numbers/import", { number: "+442071838750" }, { token: t.key });
      expect(imported.status).toBe(201);
      expect(t.feeEntries()).toEqual([
        {
          amount: -1_500_000,
          cause: "number_fee",
          category: "number.simulated",
          ref_type: "phone_number",
          ref_id: bought.body.id,
          note: `${bought.body.number}, month 1: 2027-01-31 to 2027-02-28`,
          dedupe: `number_fee:${bought.body.id}:0`,
        },
        expect.objectContaining({ amount: -1_500_000, ref_id: imported.body.id, note: "+442071838750, month 1: 2027-01-31 to 2027-02-28", dedupe: `number_fee:${imported.body.id}:0` }),
      ]);
      // The next month is scheduled with it.
      expect(feeRow(t, bought.body.id)).toEqual({ period: 1, anchor_at: T0, next_at: monthStart(1) });
      expect(await t.balance()).toBe(7 * USD);
      const usage = (await t.server.api.get(`/v1/wallet/usage?from=2027-01-01T00:00:00Z&to=2027-02-01T00:00:00Z`, { token: t.key })).body;
      expect(usage.total).toBe(3_000_000);
      expect(usage.by_category).toEqual([{ category: "number.simulated", amount: 3_000_000, seconds: 0 }]);
      expect(usage.by_day).toEqual([{ day: "2027-01-31", amount: 3_000_000 }]);
    });
  }, 30_000);

  test("a wallet that cannot pay the first month gets 402 before the carrier is asked for the number", async () => {
    const fake = new FakeTwilio().start();
    const t = await tenantOn();
    try {
      const connection = await t.server.api.post(
        "/v1/telephony/carriers",
        { name: "Twilio (local)", kind: "twilio", settings: { api_base_url: fake.url }, credentials: { account_sid: fake.accountSid, auth_token: fake.authToken } },
        { token: t.tenant.token },
      );
      expect(connection.status).toBe(201);
      await t.setPrices(prices({ twilio: 1_150_000 }));
      await t.credit(USD);
      const refused = await t.buy({ carrier_id: connection.body.id, number: "+14155550301" });
      expect(`${refused.status} ${refused.body.code}`).toBe("402 insufficient_funds");
      expect(refused.body.detail).toContain("1.15");
      const refusedImport = await t.server.api.post("/v1/phone-numbers/import", { carrier: connection.body.id, number: "+14155550302" }, { token: t.key });
      expect(`${refusedImport.status} ${refusedImport.body.code}`).toBe("402 insufficient_funds");
      expect(fake.owned.size).toBe(0);
      expect((await t.server.api.get("/v1/phone-numbers", { token: t.key })).body.data).toEqual([]);
      expect(t.feeEntries()).toEqual([]);
      // Topped up, the same purchase goes through and pays its month on the carrier's own category.
      await t.credit(USD);
      const bought = await t.buy({ carrier_id: connection.body.id, number: "+14155550301" });
      expect(bought.status).toBe(201);
      expect([...fake.owned.keys()]).toEqual(["+14155550301"]);
      expect(t.feeEntries().map((e) => [e.category, e.amount])).toEqual([["number.twilio", -1_150_000]]);
      expect(await t.balance()).toBe(850_000);
    } finally {
      await t.server.stop();
      fake.stop();
    }
  }, 30_000);

  test("each month is charged once when it begins, at the price in force then; months missed are each charged; a fee may overdraw", async () => {
    await withTenant(async (t) => {
      await t.setPrices(prices({ simulated: USD }));
      await t.credit(10 * USD);
      // Set now, in force from ten days on: the second month pays it, the first does not.
      await t.setPrices(prices({ simulated: 2 * USD }, T0 + 10 * 86_400_000));
      const id = (await t.buy()).body.id as string;
      t.server.clock.set(monthStart(1) - 1);
      expect(chargeNumberFees(t.server.ctx)).toBe(0);
      t.server.clock.set(monthStart(1));
      expect(chargeNumberFees(t.server.ctx)).toBe(1);
      expect(chargeNumberFees(t.server.ctx)).toBe(0);
      // A price for mid-April: March's month keeps the old one, April's and May's pay it.
      await t.setPrices(prices({ simulated: 3 * USD }, Date.UTC(2027, 3, 15)));
      t.server.clock.set(Date.UTC(2027, 5, 1)); // nobody looked since February
      expect(chargeNumberFees(t.server.ctx)).toBe(3);
      expect(chargeNumberFees(t.server.ctx)).toBe(0);
      const entries = t.feeEntries();
      expect(entries.map((e) => [e.dedupe, e.amount])).toEqual([0, 1, 2, 3, 4].map((k) => [`number_fee:${id}:${k}`, -[1, 2, 2, 3, 3][k]! * USD]));
      expect(entries[3]!.note).toEndWith("month 4: 2027-04-30 to 2027-05-31");
      expect(feeRow(t, id)).toEqual({ period: 5, anchor_at: T0, next_at: Date.UTC(2027, 5, 30, 12) });
      // 10 paid in, 11 charged: the number keeps working below zero, calls wait for a top-up.
      expect(await t.balance()).toBe(-USD);
      expect(ledgerSum(t)).toBe(-USD);
      expect((await t.server.api.get(`/v1/phone-numbers/${id}`, { token: t.key })).status).toBe(200);
    });
  }, 30_000);

  test("a sweep that charged but did not move the number on (a crash between) charges nothing twice", async () => {
    await withTenant(async (t) => {
      const id = await paidNumber(t);
      t.server.clock.set(monthStart(2));
      expect(chargeNumberFees(t.server.ctx)).toBe(2);
      t.server.ctx.sqlite.prepare("UPDATE number_fees SET period = 1, next_at = ? WHERE phone_number_id = ?").run(monthStart(1), id);
      expect(chargeNumberFees(t.server.ctx)).toBe(0);
      expect(feeRow(t, id)).toEqual({ period: 3, anchor_at: T0, next_at: monthStart(3) });
      expect(t.feeEntries()).toHaveLength(3);
      expect(await t.balance()).toBe(7 * USD);
    });
  }, 30_000);

  test("releasing a number stops its fees; the month begun is not refunded", async () => {
    await withTenant(async (t) => {
      const id = await paidNumber(t);
      expect((await t.server.api.delete(`/v1/phone-numbers/${id}`, { token: t.key })).status).toBe(204);
      expect(feeRow(t, id)).toBeUndefined();
      t.server.clock.set(monthStart(3));
      expect(chargeNumberFees(t.server.ctx)).toBe(0);
      expect(t.feeEntries()).toHaveLength(1);
      expect(await t.balance()).toBe(9 * USD);
    });
  }, 30_000);

  test("a free instance charges nothing and needs no balance; months that begin after prices are set are charged", async () => {
    await withTenant(async (t) => {
      const id = (await t.buy()).body.id as string;
      t.server.clock.set(monthStart(2));
      expect(chargeNumberFees(t.server.ctx)).toBe(0);
      expect(t.feeEntries()).toEqual([]);
      expect(feeRow(t, id)).toMatchObject({ period: 3 });
      await t.setPrices(prices({ simulated: USD }));
      t.server.clock.set(monthStart(3));
      expect(chargeNumberFees(t.server.ctx)).toBe(1);
      expect(t.feeEntries().map((e) => e.dedupe)).toEqual([`number_fee:${id}:3`]);
    });
  }, 30_000);

  describe("across a restart", () => {
    const dataDir = mkdtempSync(join(tmpdir(), "parley-number-fees-"));
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    test("the months that began while the server was down are charged when it starts", async () => {
      const first = await tenantOn({ settings: { dataDir } });
      let workspaceId: string;
      let id: string;
      try {
        id = await paidNumber(first);
        workspaceId = first.tenant.workspaceId;
      } finally {
        await first.server.stop();
      }
      const second = await startTestServer({ startAt: monthStart(3) + 1, settings: { dataDir } });
      try {
        const charged = second.ctx.sqlite.prepare("SELECT dedupe FROM ledger_entries WHERE workspace_id = ? AND cause = 'number_fee' ORDER BY dedupe").all(workspaceId) as { dedupe: string }[];
        expect(charged.map((e) => e.dedupe)).toEqual([0, 1, 2, 3].map((k) => `number_fee:${id}:${k}`));
        expect(chargeNumberFees(second.ctx)).toBe(0);
      } finally {
        await second.stop();
      }
    }, 30_000);
  });
});
