// The database away for longer than a node's loss bound (15 s of silence), then back: every node was
// silent only because the database was, so none of them is lost. They all go on serving, with the same
// node ids, and the calls they held (which talked on through the outage) are not ended as node_lost.
// README "Running a cluster": "When a node or the database goes away".
import { SQL } from "bun";
import { afterAll, expect, test } from "bun:test";
import { callingAgent } from "../helpers/campaigns.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase, sharedPostgres } from "../helpers/postgres.ts";

const OUTAGE_MS = 20_000;
const CALLS = 4;

const url = freshDatabase();
let cluster: Nodes | undefined;
const phones: WebSocket[] = [];
afterAll(async () => {
  for (const phone of phones) phone.close();
  sharedPostgres().start();
  await cluster?.stop();
});

test(`PostgreSQL stopped for ${OUTAGE_MS / 1000} s under three nodes: afterwards all three serve on as the same nodes, and their calls are not ended as lost`, async () => {
  cluster = await startNodes(url, 3, (n) => ["--node-name", `node-${n + 1}`]);
  const [first, second] = cluster.nodes;
  const owner = await registerUser(first.api, "outage");
  const key = (await createKey(first.api, owner.token, "admin")).secret;
  // No silence timeout within the test: the phones send silence.
  const { number } = await callingAgent(first.api, key, "415", { turn_taking: { endpointing_ms: 700, interruptions: { enabled: true, min_speech_ms: 300 }, silence: { reminder_after_s: 600, reminder_message: "Still there?", timeout_s: 900 }, max_duration_s: 900, end_call_phrases: [] } });

  // Calls held by node 2, talking (silence frames) through the outage.
  const callIds: string[] = [];
  for (let n = 0; n < CALLS; n++) {
    const phone = new WebSocket(`${second.url.replace(/^http/, "ws")}/v1/telephony/simulated/softphone?to=${encodeURIComponent(number)}`, { headers: { authorization: `Bearer ${key}` } } as unknown as string[]);
    phones.push(phone);
    callIds.push(
      await new Promise<string>((resolve, reject) => {
        phone.addEventListener("message", (event) => typeof event.data === "string" && JSON.parse(event.data).type === "answered" && resolve(JSON.parse(event.data).call_id));
        phone.addEventListener("error", () => reject(new Error("the phone could not connect")));
      }),
    );
  }
  const silence = new Uint8Array(160).fill(0xff);
  const talking = setInterval(() => phones.forEach((phone) => phone.readyState === WebSocket.OPEN && phone.send(silence)), 20);

  const health = async (node: Nodes["nodes"][number]) => (await fetch(`${node.url}/v1/health`)).json() as Promise<any>;
  const before = await health(first);
  expect(before.cluster.live_nodes.map((n: { name: string }) => n.name).sort()).toEqual(["node-1", "node-2", "node-3"]);
  const ids = before.cluster.live_nodes.map((n: { id: string }) => n.id).sort();

  sharedPostgres().stop();
  await Bun.sleep(OUTAGE_MS);
  sharedPostgres().start();
  // Every node reconnects within seconds; then a loss sweep (every 5 s) has run on each of them twice.
  await Bun.sleep(12_000);
  clearInterval(talking);

  expect(cluster.nodes.map((node) => node.child.exitCode)).toEqual([null, null, null]);
  for (const node of cluster.nodes) {
    const after = await health(node);
    expect({ node: node.url, status: after.status, live: after.cluster.live_nodes.map((n: { id: string }) => n.id).sort() }).toEqual({ node: node.url, status: "ok", live: ids });
  }
  const db = new SQL(url);
  try {
    expect(await db`SELECT id FROM nodes WHERE lost_at IS NOT NULL`).toEqual([]);
    const calls = (await db`SELECT id, status, end_reason FROM calls WHERE id IN ${db(callIds)}`) as { id: string; status: string; end_reason: string | null }[];
    expect(calls.filter((call) => call.end_reason === "node_lost")).toEqual([]);
    expect(calls.map((call) => call.status)).toEqual(callIds.map(() => "in_progress"));
  } finally {
    await db.close();
  }
}, 120_000);
