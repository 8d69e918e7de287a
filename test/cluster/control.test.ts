// Controls from anywhere: three Parley processes on one PostgreSQL database. A call's audio lives on the
// node that dialled it; `say`, `hangup` and `transfer` sent to any other node reach it over the signed
// node channel, scoped by workspace as on the owner; a suspension stops the tenant's calls on every
// node; the channel refuses a request not signed with the cluster's key, a stale one, or a changed body.
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { deriveKey, hmacSha256, sha256Hex } from "../../src/lib/crypto.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase } from "../helpers/postgres.ts";

const url = freshDatabase();
let cluster: Nodes;
let sql: SQL;
let owner: RegisteredUser;
let stranger: RegisteredUser;
let agentId: string;

beforeAll(async () => {
  cluster = await startNodes(url, 3);
  sql = new SQL(url);
  const api = cluster.nodes[0].api;
  owner = await registerUser(api, "owner");
  stranger = await registerUser(cluster.nodes[1].api, "stranger");
  const as = { token: owner.token };
  agentId = (await api.post("/v1/agents", { name: "Front desk", first_message: "Hello, this is Acme." }, as)).body.id;
  const number = (await api.post("/v1/phone-numbers/buy", { area_code: "212" }, as)).body;
  expect((await api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agentId }, as)).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await sql?.close();
  await cluster?.stop();
});

/** A simulated call that answers at once and stays on the line, silent, until someone hangs up. */
async function liveCall(user: RegisteredUser, agent: string): Promise<string> {
  const placed = await cluster.nodes[0].api.post("/v1/calls/outbound", { agent_id: agent, to: "+12125550160", simulation: { ring_ms: 0 } }, { token: user.token });
  expect(placed.status).toBe(201);
  await waitForCall(cluster.nodes[0].api, user.token, placed.body.id, (c) => c.status === "in_progress", 15_000);
  return placed.body.id;
}

/** Which of the processes holds a call's leg (calls.node_id → the node's registered URL). */
async function ownerIndex(callId: string): Promise<number> {
  const [row] = await sql`SELECT n.url FROM calls c JOIN nodes n ON n.id = c.node_id WHERE c.id = ${callId}`;
  const index = cluster.nodes.findIndex((node) => node.url === row.url);
  expect(index).toBeGreaterThanOrEqual(0);
  return index;
}

/** The cluster's node key, as every node derives it from the shared instance key. */
function nodeKey(): Uint8Array {
  const secret = Buffer.from(readFileSync(join(cluster.dataDirs[0], "instance.key"), "utf8").trim(), "base64");
  return deriveKey(new Uint8Array(secret), "node");
}

function signed(key: Uint8Array, path: string, body: string, timestamp = Date.now(), bodyHash = sha256Hex(body)): Record<string, string> {
  const signature = hmacSha256(key, `POST\n${path}\n${timestamp}\n${bodyHash}`).toString("hex");
  return { "content-type": "application/json", "x-parley-node-timestamp": String(timestamp), "x-parley-node-body-sha256": bodyHash, "x-parley-node-signature": signature };
}

describe("a call owned by one node, controlled through another", () => {
  let callId: string;
  let ownerAt: number;
  let through: number;

  beforeAll(async () => {
    callId = await liveCall(owner, agentId);
    ownerAt = await ownerIndex(callId);
    through = (ownerAt + 1) % 3;
  }, 30_000);

  test("another workspace's credential gets 404 from every node, and changes nothing", async () => {
    for (const node of cluster.nodes) {
      for (const [path, body] of [["hangup", undefined], ["say", { text: "planted by a stranger" }], ["transfer", { to: "+15550001111" }]] as const) {
        const res = await node.api.post(`/v1/calls/${callId}/${path}`, body, { token: stranger.token });
        expect(`${node.url} ${path} ${res.status} ${res.body.code}`).toBe(`${node.url} ${path} 404 not_found`);
      }
    }
    const call = (await cluster.nodes[through].api.get(`/v1/calls/${callId}`, { token: owner.token })).body;
    expect(call.status).toBe("in_progress");
    expect(JSON.stringify(call.transcript)).not.toContain("stranger");
  });

  test("say through another node: the owner's agent speaks it; erase is refused while it is live anywhere", async () => {
    const said = await cluster.nodes[through].api.post(`/v1/calls/${callId}/say`, { text: "Please hold the line." }, { token: owner.token });
    expect(said.status).toBe(202);
    expect(said.body).toEqual({ status: "accepted" });
    // The owner's field check stays the owner's: a bad body is refused where it came in, as before.
    expect((await cluster.nodes[through].api.post(`/v1/calls/${callId}/say`, { text: "" }, { token: owner.token })).status).toBe(422);
    await waitForCall(cluster.nodes[through].api, owner.token, callId, (c) => (c.transcript ?? []).some((t: any) => t.role === "agent" && t.text === "Please hold the line."), 15_000);
    const events = (await cluster.nodes[through].api.get(`/v1/calls/${callId}/events`, { token: owner.token })).body.data;
    expect(events.find((e: any) => e.type === "say")?.data).toEqual({ text: "Please hold the line." });
    const erase = await cluster.nodes[through].api.delete(`/v1/calls/${callId}`, { token: owner.token });
    expect(`${erase.status} ${erase.body.code}`).toBe("409 invalid_state");
  }, 30_000);

  test("the channel refuses what the cluster's key did not sign: no signature, another key, a stale time, a changed body", async () => {
    const path = `/internal/v1/calls/${callId}/control`;
    const target = `${cluster.nodes[ownerAt].url}${path}`;
    const body = JSON.stringify({ workspace_id: owner.workspaceId, action: "say", text: "forged" });
    const send = (headers: Record<string, string>, sent = body) => fetch(target, { method: "POST", headers, body: sent });
    const outcome = async (res: Response) => `${res.status} ${((await res.json()) as { code: string }).code} ${res.headers.get("content-type")}`;

    expect(await outcome(await send({ "content-type": "application/json" }))).toBe("401 unauthorized application/problem+json");
    // A client's credential is no node signature.
    expect(await outcome(await send({ "content-type": "application/json", authorization: `Bearer ${owner.token}` }))).toBe("401 unauthorized application/problem+json");
    expect(await outcome(await send(signed(crypto.getRandomValues(new Uint8Array(32)), path, body)))).toBe("403 forbidden application/problem+json");
    expect(await outcome(await send(signed(nodeKey(), path, body, Date.now() - 31_000)))).toBe("403 forbidden application/problem+json");
    // Signed for one body, sent with another.
    expect(await outcome(await send(signed(nodeKey(), path, body), body.replace("forged", "swapped")))).toBe("403 forbidden application/problem+json");
    // Signed for another path.
    expect(await outcome(await send(signed(nodeKey(), `/internal/v1/calls/call_other/control`, body)))).toBe("403 forbidden application/problem+json");
    // Well signed, but for a workspace the call is not in: the owner looks it up in that workspace.
    const elsewhere = JSON.stringify({ workspace_id: stranger.workspaceId, action: "say", text: "forged" });
    expect(await outcome(await send(signed(nodeKey(), path, elsewhere), elsewhere))).toBe("404 not_found application/problem+json");
    // Well signed, but sent to a node that does not hold the call (a node URL that is a balancer's): said, not passed on.
    const misdirected = await fetch(`${cluster.nodes[through].url}${path}`, { method: "POST", headers: signed(nodeKey(), path, body), body });
    expect(misdirected.status).toBe(503);
    expect(((await misdirected.json()) as { detail: string }).detail).toContain("--node-url");
    // Not in the API document, and no audit row for any of them.
    const doc = (await cluster.nodes[0].api.get("/openapi.json")).body;
    expect(Object.keys(doc.paths).filter((p) => p.includes("internal"))).toEqual([]);
    const [{ n }] = await sql`SELECT count(*)::int AS n FROM audit_log WHERE path LIKE '/internal/%'`;
    expect(n).toBe(0);
    // A well-signed control is what the nodes send each other: accepted, and no client's Idempotency-Key applies to it.
    const good = JSON.stringify({ workspace_id: owner.workspaceId, action: "say", text: "Signed by the cluster." });
    const [{ keys }] = await sql`SELECT count(*)::int AS keys FROM idempotency_keys`;
    expect((await send({ ...signed(nodeKey(), path, good), "idempotency-key": "node-hop-1" }, good)).status).toBe(202);
    expect((await sql`SELECT count(*)::int AS keys FROM idempotency_keys`)[0].keys).toBe(keys);
    const events = (await cluster.nodes[0].api.get(`/v1/calls/${callId}/events`, { token: owner.token })).body.data;
    expect(events.filter((e: any) => e.type === "say").map((e: any) => e.data.text)).toEqual(["Please hold the line.", "Signed by the cluster."]);
  });

  test("hang up through another node: the call ends agent_hangup on its owner; the node answers the ended call", async () => {
    const hungUp = await cluster.nodes[through].api.post(`/v1/calls/${callId}/hangup`, undefined, { token: owner.token });
    expect(hungUp.status).toBe(202);
    expect(hungUp.body.id).toBe(callId);
    const ended = await waitForCall(cluster.nodes[(through + 1) % 3].api, owner.token, callId, (c) => c.status === "completed", 15_000);
    expect(ended.end_reason).toBe("agent_hangup");
    const again = await cluster.nodes[through].api.post(`/v1/calls/${callId}/hangup`, undefined, { token: owner.token });
    expect(`${again.status} ${again.body.code}`).toBe("409 invalid_state");
  }, 30_000);
});

test("transfer through another node: the owner's leg is transferred, and the node answers the transferred call", async () => {
  const callId = await liveCall(owner, agentId);
  const through = cluster.nodes[((await ownerIndex(callId)) + 2) % 3];
  const transferred = await through.api.post(`/v1/calls/${callId}/transfer`, { to: "+15550003333", reason: "the supervisor takes over" }, { token: owner.token });
  expect(transferred.status).toBe(202);
  expect(transferred.body).toMatchObject({ id: callId, status: "transferred", end_reason: "transferred", transferred_to: "+15550003333" });
  const events = (await through.api.get(`/v1/calls/${callId}/events`, { token: owner.token })).body.data;
  expect(events.find((e: any) => e.type === "transfer")?.data).toEqual({ to: "+15550003333", reason: "the supervisor takes over" });
}, 30_000);

test("suspending a tenant through one node: every node refuses it at once and hangs up its calls; a resumption reaches every node", async () => {
  const tenant = await registerUser(cluster.nodes[0].api, "tenant");
  const as = { token: tenant.token };
  const api = cluster.nodes[0].api;
  const agent = (await api.post("/v1/agents", { name: "Tenant desk", first_message: "Hello there." }, as)).body.id;
  const number = (await api.post("/v1/phone-numbers/buy", { area_code: "312" }, as)).body;
  await api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent }, as);
  const ids = await Promise.all([0, 1, 2, 3].map(() => liveCall(tenant, agent)));
  const owners = await Promise.all(ids.map(ownerIndex));
  // Through a node that does not hold every call: at least one is on another node.
  const via = [0, 1, 2].find((index) => owners.some((at) => at !== index))!;
  const login = await cluster.nodes[via].api.post("/v1/auth/login", { email: cluster.operator.email, password: cluster.operator.password });
  const suspended = await cluster.nodes[via].api.post(`/v1/admin/workspaces/${tenant.workspaceId}/suspend`, { reason: "unpaid invoices" }, { token: login.body.access_token });
  expect(suspended.status).toBe(200);
  for (const deadline = Date.now() + 10_000; ; await Bun.sleep(100)) {
    const rows = await sql`SELECT status, end_reason FROM calls WHERE id IN ${sql(ids)}`;
    if (rows.every((row: any) => row.status !== "in_progress")) {
      expect(rows.map((row: any) => `${row.status} ${row.end_reason}`)).toEqual(ids.map(() => "completed workspace_suspended"));
      break;
    }
    if (Date.now() > deadline) throw new Error(`calls still live after the suspension: ${JSON.stringify(rows)} (owners ${owners}, suspended through ${via})`);
  }
  for (const node of cluster.nodes) {
    const refused = await node.api.get("/v1/agents", as);
    expect(`${node.url} ${refused.status} ${refused.body.code}`).toBe(`${node.url} 403 workspace_suspended`);
  }
  const resumed = await cluster.nodes[via].api.post(`/v1/admin/workspaces/${tenant.workspaceId}/resume`, undefined, { token: login.body.access_token });
  expect(resumed.status).toBe(200);
  for (const node of cluster.nodes) {
    for (const deadline = Date.now() + 10_000; (await node.api.get("/v1/agents", as)).status !== 200; await Bun.sleep(200)) {
      if (Date.now() > deadline) throw new Error(`${node.url} still refuses the resumed workspace`);
    }
  }
}, 60_000);

test("a call whose node is gone: 503 while it may still answer, then 409 saying its node is gone", async () => {
  const callId = await liveCall(owner, agentId);
  const ownerAt = await ownerIndex(callId);
  const through = cluster.nodes[(ownerAt + 1) % 3];
  cluster.nodes[ownerAt].child.kill("SIGKILL");
  await cluster.nodes[ownerAt].child.exited;
  // Its heartbeat is still recent: the node may only be slow, so the client is told to retry.
  const unreachable = await through.api.post(`/v1/calls/${callId}/say`, { text: "Anyone there?" }, { token: owner.token });
  expect(`${unreachable.status} ${unreachable.body.code}`).toBe("503 service_unavailable");
  // Once the others have found it lost (as the loss sweep records it), nobody holds the call's leg.
  await sql`UPDATE nodes SET lost_at = ${Date.now()} WHERE url = ${cluster.nodes[ownerAt].url}`;
  const gone = await through.api.post(`/v1/calls/${callId}/hangup`, undefined, { token: owner.token });
  expect(`${gone.status} ${gone.body.code}`).toBe("409 invalid_state");
  expect(gone.body.detail).toMatch(/node .*is gone|failed/);
}, 30_000);
