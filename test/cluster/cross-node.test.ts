// What must hold whichever node a request lands on (issue 36, item 6), with three real Parley processes
// on one PostgreSQL: an Idempotency-Key sent to every node at once runs its request once (the others
// are replayed the answer, or told it is in flight), and a request still running on one node is a 409
// on the others, never a second execution; a refresh token rotated on one node and presented again on
// another revokes the session as on one node, and of one token refreshed on every node at once exactly
// one rotation wins; an API key revoked on one node stops working on the others within a second (each
// node's cache of resolved keys). (Wallet charges across nodes: test/postgres/wallet-concurrency.test.ts, three nodes'
// HTTP APIs debiting and settling one wallet at once.)
import { SQL } from "bun";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ApiResponse } from "../helpers/client.ts";
import { createKey, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { expectInProgress, holdUpload } from "../helpers/held-request.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase } from "../helpers/postgres.ts";

const url = freshDatabase();
const db = new SQL(url);
let cluster: Nodes;
let owner: RegisteredUser;
let key: { id: string; secret: string };

const api = (node: number) => cluster.nodes[node % cluster.nodes.length].api;

beforeAll(async () => {
  cluster = await startNodes(url, 3);
  owner = await registerUser(api(0), "anywhere");
  key = await createKey(api(1), owner.token, "write");
}, 60_000);
afterAll(async () => {
  await db.close();
  await cluster?.stop();
});

const replayed = (res: ApiResponse) => res.headers.get("idempotent-replayed") === "true";

describe("Idempotency-Key on any node", () => {
  test("ten keys, each sent 9 times at once over 3 nodes: one agent per key; every other answer is its replay or 409 in progress; later every node replays it", async () => {
    const tally = { replayed: 0, inProgress: 0 };
    for (let k = 0; k < 10; k++) {
      const headers = { "idempotency-key": `burst-${k}` };
      const body = { name: `Burst ${k}` };
      const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => api(i).post("/v1/agents", body, { token: key.secret, headers })));
      const originals = answers.filter((a) => a.status === 201 && !replayed(a));
      expect(originals).toHaveLength(1);
      const [original] = originals;
      for (const answer of answers.filter((a) => a !== original)) {
        if (answer.status === 201) {
          tally.replayed++;
          expect(replayed(answer)).toBe(true);
          expect(answer.body).toEqual(original.body);
        } else {
          tally.inProgress++;
          expect(answer.status).toBe(409);
          expect(answer.body.code).toBe("idempotency_in_progress");
        }
      }
      const [{ n }] = await db`SELECT count(*)::int AS n FROM agents WHERE workspace_id = ${owner.workspaceId} AND name = ${body.name}`;
      expect(n).toBe(1);
      // Settled: the same answer from every node; the same key with another body is refused on every node.
      for (let node = 0; node < 3; node++) {
        const again = await api(node).post("/v1/agents", body, { token: key.secret, headers });
        expect(again.status).toBe(201);
        expect(replayed(again)).toBe(true);
        expect(again.body).toEqual(original.body);
        const reused = await api(node).post("/v1/agents", { name: `Other ${k}` }, { token: key.secret, headers });
        expect(reused.status).toBe(409);
        expect(reused.body.code).toBe("idempotency_key_reused");
      }
    }
    const [{ n }] = await db`SELECT count(*)::int AS n FROM agents WHERE workspace_id = ${owner.workspaceId} AND name LIKE 'Other %'`;
    expect(n).toBe(0);
    console.log(`80 repeats of 10 keys: ${tally.replayed} replayed, ${tally.inProgress} answered 409 in progress`);
  }, 60_000);

  test("an upload still streaming in on node 1 holds its key: the same request on nodes 2 and 3 is 409 in progress, not a second import; once done, they replay it", async () => {
    const agent = await api(0).post("/v1/agents", { name: "Caller" }, { token: key.secret });
    const campaign = await api(0).post("/v1/campaigns", { name: "Held upload", agent_id: agent.body.id }, { token: key.secret });
    expect(campaign.status).toBe(201);
    // Node 1 gets the headers and half the body, then waits: its request has claimed the key and is reading.
    const upload = await holdUpload(cluster.nodes[0].url, campaign.body.id, key.secret, "held-upload");
    await until(async () => (await db`SELECT 1 FROM idempotency_keys WHERE key = 'held-upload' AND status IS NULL`).length === 1);
    for (const node of [1, 2]) expectInProgress(await upload.send(cluster.nodes[node].url));
    const first = await upload.finish();
    for (const node of [1, 2]) expect(await upload.send(cluster.nodes[node].url)).toEqual({ status: 201, replayed: true, body: first });
    const [{ n }] = await db`SELECT count(*)::int AS n FROM campaign_contacts WHERE campaign_id = ${campaign.body.id}`;
    expect(n).toBe(20);
  }, 60_000);
});

describe("refresh tokens on any node", () => {
  test("a token rotated on node 1 and presented again on node 2 revokes the session: its successor and access token die on node 3", async () => {
    const user = await registerUser(api(0), "rotated");
    const rotated = await api(0).post("/v1/auth/refresh", { refresh_token: user.refreshToken });
    expect(rotated.status).toBe(200);
    expect((await api(2).get("/v1/auth/me", { token: rotated.body.access_token })).status).toBe(200);

    const reused = await api(1).post("/v1/auth/refresh", { refresh_token: user.refreshToken });
    expect(reused.status).toBe(401);
    expect(reused.body.detail).toMatch(/already used/);
    expect((await api(2).post("/v1/auth/refresh", { refresh_token: rotated.body.refresh_token })).status).toBe(401);
    for (let node = 0; node < 3; node++) expect((await api(node).get("/v1/auth/me", { token: rotated.body.access_token })).status).toBe(401);
    const [session] = await db`SELECT revoke_reason FROM sessions WHERE user_id = ${user.userId}`;
    expect(session.revoke_reason).toBe("refresh_token_reuse");
  }, 30_000);

  test("one refresh token sent to 3 nodes at once, 3 times each: exactly one rotation succeeds, the others are reuse, and the session is revoked", async () => {
    for (let round = 0; round < 5; round++) {
      const user = await registerUser(api(round), `raced${round}`);
      const answers = await Promise.all(Array.from({ length: 9 }, (_, i) => api(i).post("/v1/auth/refresh", { refresh_token: user.refreshToken })));
      expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
      expect(answers.filter((a) => a.status === 401)).toHaveLength(8);
      const [{ n }] = await db`SELECT count(*)::int AS n FROM refresh_tokens t JOIN sessions s ON s.id = t.session_id WHERE s.user_id = ${user.userId}`;
      expect(n).toBe(2); // the presented token and the one successor
      const winner = answers.find((a) => a.status === 200)!.body;
      for (let node = 0; node < 3; node++) expect((await api(node).post("/v1/auth/refresh", { refresh_token: winner.refresh_token })).status).toBe(401);
    }
  }, 60_000);
});

describe("API keys on any node", () => {
  test("a key revoked on node 1 is refused on nodes 2 and 3 within a second, though they had it cached", async () => {
    const doomed = await createKey(api(0), owner.token, "read-only", "doomed");
    for (let node = 0; node < 3; node++) expect((await api(node).get("/v1/agents", { token: doomed.secret })).status).toBe(200);
    const revokedAt = Date.now();
    expect((await api(0).delete(`/v1/api-keys/${doomed.id}`, { token: owner.token })).status).toBe(204);
    expect((await api(0).get("/v1/agents", { token: doomed.secret })).status).toBe(401);
    await Bun.sleep(Math.max(0, revokedAt + 1_100 - Date.now()));
    for (const node of [1, 2]) expect((await api(node).get("/v1/agents", { token: doomed.secret })).status).toBe(401);
  }, 30_000);
});

async function until(probe: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await Bun.sleep(20);
  }
}
