// A request running longer than a minute on one node keeps its Idempotency-Key on the others: the node
// renews its claims while they run (every 20 s; the test calls that tick itself after moving a shared
// fake clock two minutes on), so another node answers 409 in progress instead of taking the claim for
// a dead request's and running the request a second time. Two servers in this process on one
// PostgreSQL database with one clock (nothing here holds a lock across an await, so they cannot wait
// on each other).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ManualClock } from "../../src/core/clock.ts";
import { renewRunningClaims } from "../../src/http/idempotency.ts";
import { registerUser } from "../helpers/fixtures.ts";
import { expectInProgress, holdUpload } from "../helpers/held-request.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const url = freshDatabase();
const clock = new ManualClock(Date.now());
const dirB = mkdtempSync(join(tmpdir(), "parley-renewal-"));
let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await startTestServer({ clock, settings: { databaseUrl: url } });
  // The same instance key, as nodes of one instance have (the stored answer is sealed with it).
  copyFileSync(a.ctx.dataDir.secretFile, join(dirB, "instance.key"));
  b = await startTestServer({ clock, dataDir: dirB, settings: { databaseUrl: url } });
}, 30_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  rmSync(dirB, { recursive: true, force: true });
});

test("an upload still streaming on node A after two minutes: node B answers the same request 409 in progress, then replays A's answer; the contacts are imported once", async () => {
  const user = await registerUser(a.api, "renewal");
  const agent = await a.api.post("/v1/agents", { name: "Caller" }, { token: user.token });
  const campaign = await a.api.post("/v1/campaigns", { name: "Slow upload", agent_id: agent.body.id }, { token: user.token });
  const upload = await holdUpload(a.url, campaign.body.id, user.token, "renewed");
  const claim = () => a.ctx.sqlite.prepare("SELECT status, created_at AS \"createdAt\" FROM idempotency_keys WHERE key = 'renewed'").get() as { status: number | null; createdAt: number } | undefined;
  for (let waited = 0; !claim() && waited < 5_000; waited += 20) await Bun.sleep(20);
  const claimedAt = claim()!.createdAt;

  clock.advance(2 * 60_000);
  expect(renewRunningClaims(a.ctx)).toBe(1);
  expect(claim()).toEqual({ status: null, createdAt: claimedAt + 2 * 60_000 });
  expectInProgress(await upload.send(b.url));
  const first = await upload.finish();
  expect(await upload.send(b.url)).toEqual({ status: 201, replayed: true, body: first });
  expect(a.ctx.sqlite.prepare("SELECT count(*) AS n FROM campaign_contacts WHERE campaign_id = ?").get(campaign.body.id)).toEqual({ n: 20 });
  // Settled: nothing is left to renew.
  expect(renewRunningClaims(a.ctx)).toBe(0);
}, 30_000);
