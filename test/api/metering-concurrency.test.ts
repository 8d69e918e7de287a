// Fifty calls at once on a wallet that pays for part of their talk time (issue 13): the wallet overdraws
// by at most one settlement interval of them all, its balance is its ledger's sum, each call's charges
// are its cost and its talk time, and the calls cut off end insufficient_funds.
import { expect, test } from "bun:test";
import { LIVE, waitForCall } from "../helpers/call-api.ts";
import { createKey, registerOperator, registerUser } from "../helpers/fixtures.ts";
import { ShiftedClock, startTestServer } from "../helpers/server.ts";

const CALLS = 50;
const SETTLEMENT_SECONDS = 1;
const LINE = 540_000; // per minute: 9,000 a second
const SPEECH = 60_000; // per minute: 1,000 a second
const lines = (rate: number) => ({ inbound: rate, outbound: rate });
const PRICES = {
  per_minute: { telephony: { simulated: lines(LINE), sip: lines(0), twilio: lines(0), telnyx: lines(0) }, browser_voice: 0, speech: { builtin: SPEECH, provider: 0 }, llm: { builtin: 0, provider: 0 } },
  number_monthly: { simulated: 0, sip: 0, twilio: 0, telnyx: 0 },
};
/** The most one pass can charge a call: one interval, plus the second its talk time is rounded up to. */
const INTERVAL_COST = Math.ceil(((LINE + SPEECH) * (SETTLEMENT_SECONDS + 1)) / 60);

test(
  `${CALLS} simultaneous calls overdraw the wallet by at most one settlement interval, and every charge is its call's`,
  async () => {
    const server = await startTestServer({ clock: new ShiftedClock(), settings: { settlementSeconds: String(SETTLEMENT_SECONDS), insufficientFundsMessage: "Goodbye." } });
    try {
      const operator = await registerOperator(server);
      const tenant = await registerUser(server.api, "crowd");
      const key = (await createKey(server.api, tenant.token, "write")).secret;
      expect((await server.api.put("/v1/admin/pricing", PRICES, { token: operator.token })).status).toBe(200);
      const agent = (await server.api.post("/v1/agents", { name: "Crowd", first_message: "Hello." }, { token: key })).body;
      const number = (await server.api.post("/v1/phone-numbers/buy", { area_code: "415" }, { token: key })).body;
      await server.api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, { token: key });
      // 150 seconds of talk for calls that would talk ~300 if they could: a minute each to start, so all start.
      const credit = 150 * 10_000;
      expect((await server.api.post(`/v1/admin/workspaces/${tenant.workspaceId}/credit`, { amount: credit, note: "prepaid" }, { token: operator.token })).status).toBe(200);

      // Callees hang up after 1 to 10.8 s: the first ones end on their own, the rest run the wallet out.
      const placed = await Promise.all(
        Array.from({ length: CALLS }, (_, i) =>
          server.api.post("/v1/calls/outbound", { agent_id: agent.id, to: `+1212555${String(1000 + i)}`, simulation: { behaviour: "hang_up", hang_up_after_ms: 1000 + i * 200, ring_ms: 0 } }, { token: key }),
        ),
      );
      expect(placed.map((res) => res.status)).toEqual(Array(CALLS).fill(201));
      const ended = await Promise.all(placed.map((res) => waitForCall(server.api, key, res.body.id, (c) => !LIVE.includes(c.status), 50_000)));

      const balance = (await server.api.get("/v1/wallet", { token: key })).body.balance as number;
      const db = server.ctx.sqlite;
      const sum = (db.prepare("SELECT sum(amount) AS total FROM ledger_entries WHERE workspace_id = ?").get(tenant.workspaceId) as { total: number }).total;
      expect(balance).toBe(sum);
      // Out of money, and overdrawn by no more than one interval of every call that was live.
      expect(balance).toBeLessThanOrEqual(0);
      expect(-balance).toBeLessThanOrEqual(CALLS * INTERVAL_COST);

      const duplicates = db.prepare("SELECT dedupe, count(*) AS n FROM ledger_entries WHERE dedupe IS NOT NULL GROUP BY workspace_id, dedupe HAVING count(*) > 1").all();
      expect(duplicates).toEqual([]);
      const charges = db.prepare("SELECT ref_id AS call, category, -sum(amount) AS amount, sum(quantity) AS seconds FROM ledger_entries WHERE cause = 'call_usage' GROUP BY ref_id, category").all() as { call: string; category: string; amount: number; seconds: number }[];
      const rates: Record<string, number> = { "telephony.simulated.outbound": LINE, "speech.builtin": SPEECH };
      // Cut off: told the wallet ran out (the callee may still hang up during that closing line).
      const toldOff = await Promise.all(
        ended.map(async (call) => ((await server.api.get(`/v1/calls/${call.id}/events`, { token: key })).body.data as any[]).some((e) => e.type === "say" && e.data.reason === "insufficient_funds")),
      );
      const cutOff = ended.filter((call) => call.end_reason === "insufficient_funds");
      ended.forEach((call, i) => {
        expect(call.status).toBe("completed");
        expect(call.end_reason).toMatch(toldOff[i] ? /^(insufficient_funds|customer_hangup)$/ : /^customer_hangup$/);
        const own = charges.filter((c) => c.call === call.id).sort((a, b) => a.category.localeCompare(b.category));
        // The call shows what the ledger charged it, category by category.
        expect(call.cost.breakdown).toEqual(own.map(({ category, amount, seconds }) => ({ category, amount, seconds })));
        expect(call.cost.total).toBe(own.reduce((total, c) => total + c.amount, 0));
        const talked = Math.ceil(call.duration_ms / 1000);
        expect(own.map((c) => c.category).sort()).toEqual(Object.keys(rates).sort());
        for (const c of own) {
          expect(c.amount).toBe(Math.ceil((rates[c.category]! * c.seconds) / 60));
          // A call paid for every second it talked, and never for one more; one cut off, not for its closing line.
          if (toldOff[i]) expect(c.seconds).toBeLessThanOrEqual(talked);
          else expect(c.seconds).toBe(talked);
        }
      });
      const total = charges.reduce((sum, c) => sum + c.amount, 0);
      expect(credit - total).toBe(balance);
      expect(cutOff.length).toBeGreaterThan(0);
      expect(cutOff.length).toBeLessThan(CALLS);
      console.log(`metering concurrency: ${CALLS} calls, ${cutOff.length} cut off for funds, overdraw ${-balance} of at most ${CALLS * INTERVAL_COST}`);
    } finally {
      await server.stop();
    }
  },
  90_000,
);
