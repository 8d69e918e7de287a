// A 1,000-contact campaign on the simulated carrier, dialled by three nodes on one PostgreSQL database,
// while a random node is killed -9 twenty times (started again each time): every contact reaches a
// final state, no number is called twice, the calls are exactly the attempts, and the money adds up:
// the wallet's balance is its ledger's sum, and no call is charged more than its talk time (a call
// settled again after a crash is charged once). The dead node's calls end when a survivor finds the
// node lost (failed, node_lost); its dispatch job runs on elsewhere once its lease expires.
import { SQL } from "bun";
import { afterAll, expect, test } from "bun:test";
import { callingAgent, campaignWithContacts } from "../helpers/campaigns.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { prices, USD } from "../helpers/metering.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase } from "../helpers/postgres.ts";

const CONTACTS = 1_000;
const KILLS = 20;
/** The simulated line's price: 1,000 micro-units a second of talk, so charges count seconds. */
const PER_MINUTE = 60_000;
const FINAL = ["completed", "no_answer", "busy", "failed", "skipped", "canceled"];

const url = freshDatabase();
const db = new SQL(url);
let cluster: Nodes | undefined;
afterAll(async () => {
  await cluster?.stop();
  await db.close();
});

test(
  `${KILLS} kill -9s of a random node during a ${CONTACTS}-contact campaign: every contact final, no number called twice, calls = attempts, each call charged once`,
  async () => {
    cluster = await startNodes(url, 3, ["--job-lease-seconds", "3"]);
    const nodes = cluster;
    const api = () => nodes.nodes.find((node) => node.child.exitCode === null)!.api;
    const operator = (await api().post("/v1/auth/login", { email: nodes.operator.email, password: nodes.operator.password })).body.access_token as string;
    expect((await api().put("/v1/admin/pricing", prices(PER_MINUTE), { token: operator })).status).toBe(200);
    const owner = await registerUser(api(), "crash");
    expect((await api().post(`/v1/admin/workspaces/${owner.workspaceId}/credit`, { amount: 1_000 * USD, note: "prepaid" }, { token: operator })).status).toBeLessThan(300);
    const key = (await createKey(api(), owner.token, "admin")).secret;
    const agent = await callingAgent(api(), key);
    const phones = Array.from({ length: CONTACTS }, (_, i) => `+1${["415", "212", "303"][i % 3]}555${String(1000 + i)}`);
    const id = await campaignWithContacts(
      api(),
      nodes.nodes[0].url,
      key,
      {
        agent_id: agent.agentId,
        concurrency: 24,
        calls_per_minute: 900,
        // Short calls, so 1,000 fit in the run; a call cut off by a kill ends failed (no retries).
        simulation: { behaviour: "hang_up", hang_up_after_ms: 1_200, ring_ms: 50 },
        retry: { on: [], max_attempts: 1, delay_minutes: 1 },
      },
      `phone,n\n${phones.map((p, i) => `${p},${i}`).join("\n")}\n`,
    );
    expect((await api().post(`/v1/campaigns/${id}/start`, undefined, { token: key })).status).toBe(200);

    // Each node killed is started again at once (the new process takes over what its data dir's last one
    // held), but the last: its calls wait for a survivor to find it lost while the others dial on.
    const killed: number[] = [];
    for (let kill = 0; kill < KILLS; kill++) {
      await Bun.sleep(1_000 + Math.random() * 1_500);
      const victim = Math.floor(Math.random() * 3);
      await nodes.kill(victim);
      killed.push(victim);
      if (kill < KILLS - 1) await nodes.restart(victim);
    }
    const killsDoneAt = Date.now();
    let status = "running";
    for (const deadline = Date.now() + 90_000; status === "running" && Date.now() < deadline; await Bun.sleep(500)) {
      [{ status }] = await db`SELECT status FROM campaigns WHERE id = ${id}`;
    }
    console.log(`campaign ${status} ${Date.now() - killsDoneAt} ms after the last of ${KILLS} kills (nodes ${killed.map((n) => n + 1).join(",")})`);
    await nodes.restart(killed.at(-1)!);

    const contacts = (await db`SELECT id, phone, status, attempts FROM campaign_contacts WHERE campaign_id = ${id}`) as { id: number; phone: string; status: string; attempts: number }[];
    const calls = (await db`SELECT id, to_number, status, end_reason, answered_at, duration_ms, (metadata::jsonb ->> 'contact_id')::int AS contact FROM calls WHERE campaign_id = ${id}`) as {
      id: string;
      to_number: string;
      status: string;
      end_reason: string | null;
      answered_at: number | null;
      duration_ms: number | null;
      contact: number;
    }[];
    const charged = new Map(((await db`SELECT ref_id, sum(amount)::bigint AS amount, count(*)::int AS entries FROM ledger_entries WHERE cause = 'call_usage' GROUP BY ref_id`) as { ref_id: string; amount: number }[]).map((row) => [row.ref_id, -Number(row.amount)]));
    const [wallet] = await db`SELECT balance FROM wallets WHERE workspace_id = ${owner.workspaceId}`;
    const [ledger] = await db`SELECT sum(amount)::bigint AS total FROM ledger_entries WHERE workspace_id = ${owner.workspaceId}`;
    const ends = new Map<string, number>();
    for (const call of calls) ends.set(`${call.status}/${call.end_reason}`, (ends.get(`${call.status}/${call.end_reason}`) ?? 0) + 1);
    console.log(`${calls.length} calls for ${contacts.length} contacts: ${[...ends].map(([end, n]) => `${end} ${n}`).join(", ")}`);

    expect(status).toBe("completed");
    expect(contacts).toHaveLength(CONTACTS);
    expect(contacts.filter((c) => !FINAL.includes(c.status))).toEqual([]);
    // No number called twice, and every attempt is exactly one call.
    const perNumber = new Map<string, number>();
    for (const call of calls) perNumber.set(call.to_number, (perNumber.get(call.to_number) ?? 0) + 1);
    expect([...perNumber].filter(([, n]) => n > 1)).toEqual([]);
    expect(calls.length).toBe(contacts.reduce((sum, c) => sum + Number(c.attempts), 0));
    const perContact = new Map<number, number>();
    for (const call of calls) perContact.set(call.contact, (perContact.get(call.contact) ?? 0) + 1);
    expect(contacts.filter((c) => (perContact.get(Number(c.id)) ?? 0) !== Number(c.attempts))).toEqual([]);
    expect(calls.filter((call) => ["queued", "ringing", "in_progress"].includes(call.status))).toEqual([]);
    // A call that did not complete was on a killed node, and a survivor ended it as lost; no start of a
    // node ends calls that other, live nodes hold.
    const cutOff = calls.filter((call) => call.status !== "completed");
    expect(cutOff.filter((call) => call.end_reason !== "node_lost").length).toBe(0);
    // The money: the balance is the ledger's sum; a call is charged for its talk time at most (each
    // second once, however often it was settled), and exactly for it when it ended normally.
    expect(Number(wallet.balance)).toBe(Number(ledger.total));
    const talk = (call: (typeof calls)[number]) => (call.answered_at === null ? 0 : (PER_MINUTE / 60) * Math.ceil(Number(call.duration_ms ?? 0) / 1000));
    const overcharged = calls.filter((call) => (charged.get(call.id) ?? 0) > talk(call)).map((call) => [call.id, call.status, call.end_reason, call.duration_ms, charged.get(call.id)]);
    expect({ overcharged: overcharged.length, first: overcharged.slice(0, 3) }).toEqual({ overcharged: 0, first: [] });
    const normal = calls.filter((call) => call.status === "completed");
    expect(normal.length).toBeGreaterThan(CONTACTS / 2);
    const misbilled = normal.filter((call) => (charged.get(call.id) ?? 0) !== talk(call)).map((call) => [call.id, call.duration_ms, charged.get(call.id)]);
    expect({ misbilled: misbilled.length, first: misbilled.slice(0, 3) }).toEqual({ misbilled: 0, first: [] });
    const total = [...charged.values()].reduce((sum, amount) => sum + amount, 0);
    expect(Number(ledger.total)).toBe(1_000 * USD - total);
  },
  300_000,
);
