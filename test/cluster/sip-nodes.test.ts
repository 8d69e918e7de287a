// SIP in a cluster: one trunk connection, each node on its own address. Two Parley processes on one
// PostgreSQL database with different --node-name each bind the port their entry of `settings.nodes`
// names and answer the trunk there; a change or removal made through one node reaches the other.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { freePort } from "../helpers/baresip.ts";
import { registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { SipPeer, token } from "../helpers/sip-peer.ts";

const url = freshDatabase();
let cluster: Nodes;
let user: RegisteredUser;
let trunk: SipPeer;

beforeAll(async () => {
  cluster = await startNodes(url, 2, (index) => ["--node-name", `node-${index + 1}`]);
  user = await registerUser(cluster.nodes[0].api, "sip");
  trunk = await SipPeer.start();
}, 60_000);

afterAll(async () => {
  trunk?.close();
  await cluster?.stop();
});

/** Distinct free UDP ports. */
async function ports(count: number): Promise<number[]> {
  const found = new Set<number>();
  while (found.size < count) found.add(await freePort("udp"));
  return [...found];
}

/** OPTIONS from the trunk to a port; resolves when it is answered 200. */
async function optionsAnswered(port: number, timeoutMs = 2_000): Promise<void> {
  const callId = `${token()}@trunk`;
  const from = trunk.received.length;
  trunk.send(
    [
      `OPTIONS sip:parley@127.0.0.1:${port} SIP/2.0`,
      `Via: SIP/2.0/UDP 127.0.0.1:${trunk.port};branch=z9hG4bK${token()};rport`,
      "Max-Forwards: 70",
      `From: <sip:trunk@127.0.0.1>;tag=${token()}`,
      `To: <sip:parley@127.0.0.1>`,
      `Call-ID: ${callId}`,
      "CSeq: 1 OPTIONS",
      "Content-Length: 0",
      "",
      "",
    ].join("\r\n"),
    port,
  );
  await trunk.next((m: any) => m.type === "response" && m.status === 200 && m.headers.get("call-id") === callId, timeoutMs, from);
}

/** Whether nobody holds a UDP port (Parley binds without reusePort, so a held port refuses us). */
async function bindable(port: number): Promise<boolean> {
  try {
    (await Bun.udpSocket({ hostname: "127.0.0.1", port })).close();
    return true;
  } catch {
    return false;
  }
}

async function until(check: () => Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  for (const deadline = Date.now() + timeoutMs; !(await check()); await Bun.sleep(200)) if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
}

/** The connection's status as one node sees its own live carrier. */
const statusOn = async (node: number, id: string) => (await cluster.nodes[node].api.get(`/v1/telephony/carriers/${id}`, { token: user.token })).body.status;

test("settings.nodes is checked like the connection's own settings: 422 naming the node's field", async () => {
  const base = { trunk: `127.0.0.1:${trunk.port}`, listen_host: "127.0.0.1", keepalive_seconds: 0 };
  for (const [nodes, field] of [
    [{ "node-2": { listen_port: 70000 } }, "settings.nodes.node-2.listen_port"],
    [{ "node-2": { listen_host: "not a host!" } }, "settings.nodes.node-2.listen_host"],
    [{ "node-2": { public_address: 5 } }, "settings.nodes.node-2.public_address"],
    [{ "node-2": { rtp_port_min: 20000 } }, "settings.nodes.node-2.rtp_port_min"],
    [{ "node 2!": { listen_port: 5070 } }, "settings.nodes.node 2!"],
    [{ "node-2": 5070 }, "settings.nodes.node-2"],
    [["node-2"], "settings.nodes"],
  ] as const) {
    const res = await cluster.nodes[1].api.post("/v1/telephony/carriers", { name: "Trunk", kind: "sip", settings: { ...base, nodes } }, { token: user.token });
    expect(`${res.status} ${res.body.errors?.[0]?.field}`).toBe(`422 ${field}`);
  }
});

test("one trunk connection, two nodes: each binds the port its node entry names and answers the trunk there", async () => {
  const [own, first, second, moved] = await ports(4);
  const created = await cluster.nodes[0].api.post(
    "/v1/telephony/carriers",
    {
      name: "Office PBX",
      kind: "sip",
      settings: { trunk: `127.0.0.1:${trunk.port}`, listen_host: "127.0.0.1", listen_port: own, keepalive_seconds: 0, nodes: { "node-1": { listen_port: first }, "node-2": { listen_port: second, public_address: "127.0.0.1" } } },
    },
    { token: user.token },
  );
  expect(created.status).toBe(201);
  expect(created.body.settings.nodes).toEqual({ "node-1": { listen_port: first }, "node-2": { listen_port: second, public_address: "127.0.0.1" } });
  const id = created.body.id as string;
  // The node the connection was made on binds at once; the other within its next look at the connections.
  await until(async () => (await statusOn(0, id)).listen_port === first, "node-1 to bind its port");
  await until(async () => (await statusOn(1, id)).listen_port === second, "node-2 to bind its port");
  expect((await statusOn(1, id)).state).toBe("listening");
  await optionsAnswered(first);
  await optionsAnswered(second);
  // The connection's own port is nobody's: each node has an entry of its own.
  expect(await bindable(own)).toBe(true);

  // Node 2's port moved through node 1: node 2 rebinds there.
  const patched = await cluster.nodes[0].api.patch(`/v1/telephony/carriers/${id}`, { settings: { nodes: { "node-1": { listen_port: first }, "node-2": { listen_port: moved } } } }, { token: user.token });
  expect(patched.status).toBe(200);
  await until(async () => (await statusOn(1, id)).listen_port === moved, "node-2 to rebind");
  await optionsAnswered(moved);
  await optionsAnswered(first);

  // Removed through node 1: node 2 lets its port go too.
  expect((await cluster.nodes[0].api.delete(`/v1/telephony/carriers/${id}`, { token: user.token })).status).toBe(204);
  await until(() => bindable(moved), "node-2 to let its port go");
}, 60_000);
