// Two nodes ending one call at once on PostgreSQL (READ COMMITTED): the node holding the call hangs it up
// while another (here the test's own connection, as a survivor's takeover would) has ended it and not yet
// committed. The holder's end waits on the row, finds it ended once the other commits, and writes nothing:
// the first end stands, with no second status, timeline entry or call.ended.
import { SQL } from "bun";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callingAgent } from "../helpers/campaigns.ts";
import { ApiClient } from "../helpers/client.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { FROM_SOURCE, spawnServer } from "../helpers/process.ts";

const root = mkdtempSync(join(tmpdir(), "parley-end-race-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("a call another node ended first (its commit pending) is not ended again by its holder", async () => {
  const url = freshDatabase();
  const db = new SQL(url);
  const node = await spawnServer(FROM_SOURCE, ["--data-dir", root, "--database-url", url], { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" } });
  try {
    const api = new ApiClient(node.url);
    const owner = await registerUser(api, "race");
    const key = (await createKey(api, owner.token, "admin")).secret;
    const agent = await callingAgent(api, key);
    const placed = await api.post("/v1/calls/outbound", { agent_id: agent.agentId, to: "+12125550190", simulation: { behaviour: "silent" } }, { token: key });
    expect(placed.status).toBe(201);
    const id = placed.body.id as string;
    const status = async () => (await db`SELECT status, end_reason FROM calls WHERE id = ${id}`)[0];
    for (let i = 0; i < 100 && (await status()).status !== "in_progress"; i++) await Bun.sleep(100);
    expect((await status()).status).toBe("in_progress");

    const other = await db.reserve();
    await other.unsafe("BEGIN");
    await other.unsafe("UPDATE calls SET status = 'failed', end_reason = 'node_lost', updated_at = updated_at + 1 WHERE id = $1", [id]);
    const hangup = api.post(`/v1/calls/${id}/hangup`, {}, { token: key }); // its end waits on the row
    await Bun.sleep(1_000);
    await other.unsafe("COMMIT");
    other.release();
    await hangup;
    await Bun.sleep(500);

    expect(await status()).toEqual({ status: "failed", end_reason: "node_lost" });
    const ends = await db`SELECT count(*)::int AS n FROM events WHERE call_id = ${id} AND type = 'call.ended'`;
    expect(ends[0].n).toBe(0); // the holder's end published nothing (the test's end publishes nothing either)
    const statuses = await db`SELECT data FROM call_events WHERE call_id = ${id} AND type = 'status'`;
    expect(statuses.map((row: { data: unknown }) => (typeof row.data === "string" ? JSON.parse(row.data) : row.data).status)).toEqual(["queued", "ringing", "in_progress"]);
  } finally {
    await node.stop();
    await db.close();
  }
}, 60_000);
