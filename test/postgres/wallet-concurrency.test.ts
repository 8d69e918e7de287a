// Charging one wallet from three Parley processes on one PostgreSQL database at once (READ COMMITTED,
// nothing serialises them but the database): the balance is the sum of its ledger, every entry's
// balance_after is a step of one chain (nothing lost, nothing applied twice), debits the balance cannot
// take are refused (402) and never overdraw, and a top-up settled on every node at once is credited,
// answered and announced once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { registerUser } from "../helpers/fixtures.ts";
import { startNodes, type Nodes } from "../helpers/nodes.ts";
import { freshDatabase } from "../helpers/postgres.ts";

const USD = 1_000_000;
const url = freshDatabase();
let cluster: Nodes;
let operatorToken: string;
const db = new SQL(url);

beforeAll(async () => {
  cluster = await startNodes(url, 3);
  const login = await cluster.nodes[0].api.post("/v1/auth/login", cluster.operator);
  expect(login.status).toBe(200);
  operatorToken = login.body.access_token;
}, 60_000);
afterAll(async () => {
  await db.close();
  await cluster?.stop();
});

const credit = (node: number, workspaceId: string, body: Record<string, unknown>) => cluster.nodes[node % 3].api.post(`/v1/admin/workspaces/${workspaceId}/credit`, body, { token: operatorToken });

test("60 debits at once from 3 nodes against a balance that pays 20: exactly 20 are taken, the balance ends at 0, never below", async () => {
  for (let round = 0; round < 3; round++) {
    const tenant = await registerUser(cluster.nodes[round % 3].api, `debits${round}`);
    expect((await credit(0, tenant.workspaceId, { amount: 1 * USD, note: "prepaid" })).status).toBe(200);
    const answers = await Promise.all(Array.from({ length: 60 }, (_, i) => credit(i, tenant.workspaceId, { amount: -50_000, note: `debit ${i}` })));
    expect(answers.filter((a) => a.status !== 200 && a.status !== 402).map((a) => a.body)).toEqual([]);
    expect(answers.filter((a) => a.status === 200)).toHaveLength(20);
    expect(answers.filter((a) => a.status === 402).every((a) => a.body.code === "insufficient_funds")).toBe(true);

    const [wallet] = await db`SELECT balance FROM wallets WHERE workspace_id = ${tenant.workspaceId}`;
    const entries = await db`SELECT amount, balance_after FROM ledger_entries WHERE workspace_id = ${tenant.workspaceId}`;
    expect(Number(wallet.balance)).toBe(0);
    expect(entries.reduce((sum: number, e: { amount: bigint }) => sum + Number(e.amount), 0)).toBe(0);
    // One chain: 1,000,000 then each debit 50,000 lower, each step once.
    const steps = entries.map((e: { balance_after: bigint }) => Number(e.balance_after)).sort((a: number, b: number) => b - a);
    expect(steps).toEqual(Array.from({ length: 21 }, (_, i) => 1 * USD - i * 50_000));
    // What the 200s answered is the chain too.
    expect(answers.filter((a) => a.status === 200).map((a) => a.body.entry.balance_after).sort((a, b) => b - a)).toEqual(steps.slice(1));
  }
}, 60_000);

test("a pending top-up settled on all 3 nodes at once is credited once, answered 200 once (409 otherwise) and announced once", async () => {
  for (let round = 0; round < 3; round++) {
    const tenant = await registerUser(cluster.nodes[0].api, `topup${round}`);
    const asked = await cluster.nodes[round % 3].api.post("/v1/payments/topup", { amount: 5000 }, { token: tenant.token });
    expect(asked.status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => credit(i, tenant.workspaceId, { amount: 50 * USD, note: "INV paid", payment_id: asked.body.id })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const [wallet] = await db`SELECT balance FROM wallets WHERE workspace_id = ${tenant.workspaceId}`;
    expect(Number(wallet.balance)).toBe(50 * USD);
    const [{ n: credits }] = await db`SELECT count(*)::int AS n FROM ledger_entries WHERE workspace_id = ${tenant.workspaceId}`;
    expect(credits).toBe(1);
    const [{ n: events }] = await db`SELECT count(*)::int AS n FROM events WHERE workspace_id = ${tenant.workspaceId} AND type = 'payment.succeeded'`;
    expect(events).toBe(1);
  }
}, 60_000);
