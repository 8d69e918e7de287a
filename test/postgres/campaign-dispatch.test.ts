// One campaign dispatched from several Parley processes on one PostgreSQL database (READ COMMITTED).
// 1. Another node claims a contact (its conditional UPDATE to `dialing`, not yet committed) just as this
//    node's dispatcher reads the same contact as next: the dispatcher waits for that row, finds it taken,
//    dials the others, and the contact is called once (by the other node), never twice; the campaign
//    goes on to complete. The other node is the test's own connection, claiming as a dispatcher does.
// 2. Three nodes' job runners take the campaign's dispatch in turn, each stalled past its job leases now
//    and then (SIGSTOP, as a long GC pause or a frozen VM): every attempt places exactly one call, the
//    concurrency is never exceeded, and the campaign completes.
import { afterAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { callingAgent, campaignWithContacts } from "../helpers/campaigns.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase } from "../helpers/postgres.ts";

const CONTACTS = 90;
const CONCURRENCY = 6;
const url = freshDatabase();
const db = new SQL(url);
let cluster: Nodes | undefined;
afterAll(async () => {
  for (const node of cluster?.nodes ?? []) node.child.kill("SIGCONT");
  await cluster?.stop();
  await db.close();
});

async function campaignOf(node: Nodes["nodes"][number], label: string, contacts: number, settings: Record<string, unknown>) {
  const owner = await registerUser(node.api, label);
  const key = (await createKey(node.api, owner.token, "admin")).secret;
  const agent = await callingAgent(node.api, key);
  const phones = Array.from({ length: contacts }, (_, i) => `+1${["415", "212", "303"][i % 3]}555${String(1000 + i).padStart(4, "0")}`);
  const id = await campaignWithContacts(
    node.api,
    node.url,
    key,
    { agent_id: agent.agentId, simulation: { behaviour: "hang_up", hang_up_after_ms: 150, ring_ms: 20 }, retry: { on: [], max_attempts: 1, delay_minutes: 1 }, ...settings },
    `phone,n\n${phones.map((p, i) => `${p},${i}`).join("\n")}\n`,
  );
  return { id, key };
}

async function untilDone(id: string, ms: number): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    const [{ status }] = await db`SELECT status FROM campaigns WHERE id = ${id}`;
    if (status !== "running" || Date.now() > deadline) return status;
    await Bun.sleep(100);
  }
}

/** Calls placed per contact of the campaign. */
async function callsPerContact(id: string): Promise<Map<number, number>> {
  const rows = (await db`SELECT (metadata::jsonb ->> 'contact_id')::int AS contact, count(*)::int AS n FROM calls WHERE campaign_id = ${id} GROUP BY 1`) as { contact: number; n: number }[];
  return new Map(rows.map((row) => [Number(row.contact), row.n]));
}

test("a contact another node claimed while this node's dispatcher read it is not dialled again; the others are, and the campaign completes", async () => {
  cluster = await startNodes(url, 2, ["--job-lease-seconds", "10"]);
  const [node] = cluster.nodes;
  const { id, key } = await campaignOf(node, "claimed", 12, { concurrency: 2, calls_per_minute: 6000 });
  const [first] = await db`SELECT id FROM campaign_contacts WHERE campaign_id = ${id} ORDER BY id LIMIT 1`;
  // The other node's claim, exactly as the dispatcher's: uncommitted while this node's dispatcher starts.
  const other = await db.reserve();
  await other.unsafe("BEGIN");
  const claimed = await other.unsafe("UPDATE campaign_contacts SET status = 'dialing', attempts = attempts + 1 WHERE id = $1 AND status IN ('pending', 'retry_scheduled') RETURNING id", [first.id]);
  expect(claimed).toHaveLength(1);
  expect((await node.api.post(`/v1/campaigns/${id}/start`, undefined, { token: key })).status).toBe(200);
  await Bun.sleep(1000); // a dispatcher has read the contact as pending by now, and waits for its row
  await other.unsafe("COMMIT");
  // The other node's call to it ends.
  await other.unsafe("UPDATE campaign_contacts SET status = 'completed' WHERE id = $1", [first.id]);
  other.release();

  expect(await untilDone(id, 30_000)).toBe("completed");
  const calls = await callsPerContact(id);
  expect(calls.get(Number(first.id)) ?? 0).toBe(0); // dialled by the other node only
  const contacts = (await db`SELECT id, status, attempts FROM campaign_contacts WHERE campaign_id = ${id} ORDER BY id`) as { id: number; status: string; attempts: number }[];
  expect(contacts.map((c) => Number(c.attempts))).toEqual(contacts.map(() => 1));
  expect(contacts.slice(1).filter((c) => calls.get(Number(c.id)) !== 1)).toEqual([]);
  await cluster.stop();
  cluster = undefined;
}, 60_000);

test(
  "three nodes dispatching one campaign: one call per contact per attempt, never more dialling than its concurrency, and it completes",
  async () => {
    cluster = await startNodes(url, 3, ["--job-lease-seconds", "1"]);
    const [first] = cluster.nodes;
    const { id, key } = await campaignOf(first, "dispatch", CONTACTS, { concurrency: CONCURRENCY, calls_per_minute: 6000 });
    expect((await first.api.post(`/v1/campaigns/${id}/start`, undefined, { token: key })).status).toBe(200);

    // Watch the database while it runs: contacts being dialled never outnumber the concurrency.
    let mostDialling = 0;
    let watching = true;
    const watcher = (async () => {
      while (watching) {
        const [{ n }] = await db`SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = ${id} AND status = 'dialing'`;
        mostDialling = Math.max(mostDialling, n);
        await Bun.sleep(5);
      }
    })();
    // Stall one node at a time past its leases, a few times.
    const deadline = Date.now() + 60_000;
    let status = "running";
    for (let round = 0; status === "running" && Date.now() < deadline; round++) {
      if (round < 6) {
        const node = cluster.nodes[round % 3];
        node.child.kill("SIGSTOP");
        await Bun.sleep(1300);
        node.child.kill("SIGCONT");
      }
      await Bun.sleep(300);
      [{ status }] = await db`SELECT status FROM campaigns WHERE id = ${id}`;
    }
    watching = false;
    await watcher;

    const contacts = (await db`SELECT id, status, attempts FROM campaign_contacts WHERE campaign_id = ${id}`) as { id: number; status: string; attempts: number }[];
    const callsOf = await callsPerContact(id);
    expect(status).toBe("completed");
    expect(contacts).toHaveLength(CONTACTS);
    expect(contacts.filter((c) => c.status !== "completed" && c.status !== "failed")).toEqual([]);
    // The heart of it: every attempt placed exactly one call.
    expect(contacts.filter((c) => (callsOf.get(Number(c.id)) ?? 0) !== Number(c.attempts))).toEqual([]);
    expect(contacts.every((c) => Number(c.attempts) === 1)).toBe(true);
    expect(mostDialling).toBeLessThanOrEqual(CONCURRENCY);
    console.log(`campaign dispatch: ${CONTACTS} contacts, at most ${mostDialling} dialling at once (concurrency ${CONCURRENCY})`);
  },
  120_000,
);
