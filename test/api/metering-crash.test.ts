// Live calls being charged while their server is SIGKILLed (issue 13): after the restart ends them, each
// call was charged exactly once per category for the seconds its record shows, none for the outage, the
// balance is the ledger's sum, and another restart charges nothing more.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LIVE, waitForCall } from "../helpers/call-api.ts";
import { ApiClient } from "../helpers/client.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { FROM_SOURCE, runParley, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { crashTestDatabase } from "../helpers/crash-database.ts";
import { ON_POSTGRES } from "../helpers/server.ts";

const SETTLEMENT_SECONDS = 1;
const OUTAGE_MS = 3000;
const LINE = 600_000; // per minute
const SPEECH = 120_000;
const lines = (rate: number) => ({ inbound: rate, outbound: rate });
const PRICES = {
  per_minute: { telephony: { simulated: lines(LINE), sip: lines(0), twilio: lines(0), telnyx: lines(0) }, browser_voice: 0, speech: { builtin: SPEECH, provider: 0 }, llm: { builtin: 0, provider: 0 } },
  number_monthly: { simulated: 0, sip: 0, twilio: 0, telnyx: 0 },
};
const RATES: Record<string, number> = { "telephony.simulated.outbound": LINE, "speech.builtin": SPEECH };
const CREDIT = 100_000_000;

const dir = mkdtempSync(join(tmpdir(), "parley-metering-crash-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const database = crashTestDatabase(dir);
const start = () => spawnServer(FROM_SOURCE, ["--data-dir", dir, ...database.args, "--settlement-seconds", String(SETTLEMENT_SECONDS)], { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "100000" } });

interface Charge {
  call: string;
  category: string;
  amount: number;
  seconds: number;
}

/** The ledger as the file holds it (read while no server writes, or between its commits). */
function readLedger(workspaceId: string) {
  const db = database.open();
  try {
    return {
      charges: db.prepare("SELECT ref_id AS call, category, -sum(amount) AS amount, sum(quantity) AS seconds FROM ledger_entries WHERE workspace_id = ? AND cause = 'call_usage' GROUP BY ref_id, category ORDER BY ref_id, category").all(workspaceId) as Charge[],
      sum: (db.prepare("SELECT sum(amount) AS total, count(*) AS n FROM ledger_entries WHERE workspace_id = ?").get(workspaceId) as { total: number; n: number }),
      balance: (db.prepare("SELECT balance FROM wallets WHERE workspace_id = ?").get(workspaceId) as { balance: number }).balance,
      duplicates: db.prepare("SELECT dedupe FROM ledger_entries WHERE dedupe IS NOT NULL GROUP BY workspace_id, dedupe HAVING count(*) > 1").all(),
      integrity: database.integrity(db),
    };
  } finally {
    db.close();
  }
}

test(
  "SIGKILL while live calls are being settled, restart: each call charged once for what its record shows, nothing for the outage",
  async () => {
    expect((await runParley(FROM_SOURCE, ["migrate", "--init", "--data-dir", dir, ...database.args])).exitCode).toBe(0);
    const created = await runParley(FROM_SOURCE, ["user", "create", "--email", "ops@example.test", "--password-stdin", "--operator", "--data-dir", dir, ...database.args], { stdin: "operator password long\n" });
    expect(created.exitCode).toBe(0);
    let server: ServerProcess = await start();
    let api = new ApiClient(server.url);
    try {
      const operator = (await api.post("/v1/auth/login", { email: "ops@example.test", password: "operator password long" })).body.access_token as string;
      const tenant = await registerUser(api, "crash-payer");
      const key = (await createKey(api, tenant.token, "write")).secret;
      expect((await api.put("/v1/admin/pricing", PRICES, { token: operator })).status).toBe(200);
      expect((await api.post(`/v1/admin/workspaces/${tenant.workspaceId}/credit`, { amount: CREDIT, note: "prepaid" }, { token: operator })).status).toBe(200);
      const agent = (await api.post("/v1/agents", { name: "Crash", first_message: "Hello." }, { token: key })).body;
      const number = (await api.post("/v1/phone-numbers/buy", { area_code: "415" }, { token: key })).body;
      await api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id }, { token: key });

      // Two hang up before the crash (settled when they end), four are live through it.
      const simulations = [{ behaviour: "hang_up", hang_up_after_ms: 1500 }, { behaviour: "hang_up", hang_up_after_ms: 2200 }, ...Array(4).fill({ behaviour: "silent" })];
      const placed = await Promise.all(simulations.map((simulation, i) => api.post("/v1/calls/outbound", { agent_id: agent.id, to: `+121255520${10 + i}`, simulation: { ...simulation, ring_ms: 0 } }, { token: key })));
      expect(placed.map((res) => res.status)).toEqual(Array(simulations.length).fill(201));
      const ids = placed.map((res) => res.body.id as string);
      await Promise.all(ids.map((id) => waitForCall(api, key, id, (c) => c.status !== "queued" && c.status !== "ringing", 20_000)));
      // A few settlement passes in, mid-interval.
      await Bun.sleep(3 * SETTLEMENT_SECONDS * 1000 + 400);
      server.child.kill("SIGKILL");
      await server.child.exited;
      const atCrash = readLedger(tenant.workspaceId);
      expect(atCrash.balance).toBe(atCrash.sum.total);
      const reachedBeforeCrash = new Map(atCrash.charges.map((c) => [`${c.call} ${c.category}`, c.seconds]));
      expect(reachedBeforeCrash.size).toBeGreaterThan(0);

      // The server stays down a while: an outage is not talk time.
      await Bun.sleep(OUTAGE_MS);
      server = await start();
      api = new ApiClient(server.url);
      const ended = await Promise.all(ids.map((id) => waitForCall(api, key, id, (c) => !LIVE.includes(c.status), 20_000)));
      expect((await api.get("/v1/wallet", { token: key })).body.balance).toBe(readLedger(tenant.workspaceId).balance);
      expect(await server.stop()).toBe(0);

      const after = readLedger(tenant.workspaceId);
      expect(after.integrity).toBe("ok");
      expect(after.duplicates).toEqual([]);
      expect(after.balance).toBe(after.sum.total);
      const charged = after.charges.reduce((total, c) => total + c.amount, 0);
      expect(CREDIT - charged).toBe(after.balance);
      expect(charged).toBe(ended.reduce((total, call) => total + call.cost.total, 0));
      for (const call of ended) {
        const own = after.charges.filter((c) => c.call === call.id);
        expect(own.map((c) => c.category).sort()).toEqual(Object.keys(RATES).sort());
        expect(call.cost.breakdown).toEqual(own.map(({ category, amount, seconds }) => ({ category, amount, seconds })));
        for (const c of own) {
          // Exactly the seconds its record shows, each paid once, at its rate.
          expect(c.seconds).toBe(Math.ceil(call.duration_ms / 1000));
          expect(c.amount).toBe(Math.ceil((RATES[c.category]! * c.seconds) / 60));
          // Nothing lost: at least what it reached before the crash; nothing for the outage: at most one interval more.
          const before = reachedBeforeCrash.get(`${c.call} ${c.category}`) ?? 0;
          expect(c.seconds).toBeGreaterThanOrEqual(before);
          expect(c.seconds).toBeLessThanOrEqual(before + SETTLEMENT_SECONDS + 1);
        }
      }
      expect(ended.filter((call) => call.end_reason === "customer_hangup")).toHaveLength(2);
      // On PostgreSQL the restart takes over the node that served this data dir (its calls end node_lost).
      expect(ended.filter((call) => call.end_reason === (ON_POSTGRES ? "node_lost" : "error"))).toHaveLength(4);

      // Another restart charges nothing more.
      server = await start();
      api = new ApiClient(server.url);
      expect((await api.get("/v1/wallet", { token: key })).body.balance).toBe(after.balance);
      expect(await server.stop()).toBe(0);
      const again = readLedger(tenant.workspaceId);
      expect(again.sum).toEqual(after.sum);
      expect(again.balance).toBe(after.balance);
      console.log(`metering crash test: ${ids.length} calls, ${atCrash.sum.n} ledger entries at the SIGKILL, ${after.sum.n} after the restart, ${charged} micro-units charged`);
    } finally {
      if (server.child.exitCode === null) server.child.kill("SIGKILL");
    }
  },
  90_000,
);
