// A lost node's jobs (issue 36): the survivor hands them back at once by the lease holder, the node id;
// the lost node's own runner, still running a handler, changes nothing afterwards (its completion finds
// the lease gone); and a placing job whose lease is gone dials nothing (the call another node now places
// stays queued for it), while one that holds its lease dials as before.
import { afterEach, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { jobs } from "../../src/db/schema/index.ts";
import { releaseLeasesOf } from "../../src/jobs/leases.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { JobRunner, type RunningJob } from "../../src/jobs/runner.ts";
import { placeCall } from "../../src/modules/calls/connect.ts";
import { simulatedCalls } from "../../src/telephony/simulated/carrier.ts";
import { callingAgent } from "../helpers/campaigns.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { createTestContext, startTestServer } from "../helpers/server.ts";

let env: ReturnType<typeof createTestContext> | undefined;
afterEach(() => {
  env?.close();
  env = undefined;
});

test("a lost node's running job is handed back at once, its attempt counted; the lost runner's completion then changes nothing", async () => {
  env = createTestContext();
  const { ctx, clock } = env;
  const runner = new JobRunner(ctx, { holder: "node_lost_one", leaseMs: 120_000 });
  let release!: () => void;
  const running = new Promise<void>((resolve) => (release = resolve));
  let started!: () => void;
  const begun = new Promise<void>((resolve) => (started = resolve));
  runner.register("t.long", async () => {
    started();
    await running;
  });
  const id = enqueueJob(ctx, { type: "t.long", payload: {}, maxAttempts: 3 }).id;
  await runner.tick();
  await begun;
  const row = () => ctx.db.select().from(jobs).where(eq(jobs.id, id)).get()!;
  expect(row()).toMatchObject({ state: "executing", lockedBy: "node_lost_one", attempt: 1 });

  expect(releaseLeasesOf(ctx.db, "node_other", clock.now())).toBe(0);
  expect(releaseLeasesOf(ctx.db, "node_lost_one", clock.now())).toBe(1);
  expect(row()).toMatchObject({ state: "retryable", lockedBy: null, runAt: clock.now(), attempt: 1 });
  expect(row().errors.at(-1)).toMatchObject({ attempt: 1, error: "its node was lost" });

  release();
  await runner.stop(1_000);
  expect(row().state).toBe("retryable"); // not completed by the runner that lost it
}, 20_000);

test("a placing job whose lease is gone dials nothing and leaves the call queued; one that holds it dials", async () => {
  const server = await startTestServer();
  try {
    const { ctx } = server;
    await server.ctx.jobs.stop(0); // this test runs the placing job by hand
    const owner = await registerUser(server.api, "placing");
    const agent = await callingAgent(server.api, (await createKey(server.api, owner.token, "admin")).secret);
    const now = ctx.clock.now();
    const queued = (id: string) =>
      ctx.sqlite
        .prepare("INSERT INTO calls (id, workspace_id, agent_id, agent_version, direction, carrier, from_number, to_number, status, variables, metadata, carrier_options, created_at, updated_at) VALUES (?, ?, ?, 1, 'outbound', 'simulated', ?, '+12125550180', 'queued', '{}', '{}', '{\"behaviour\":\"busy\"}', ?, ?)")
        .run(id, owner.workspaceId, agent.agentId, agent.number, now, now);
    const job = (callId: string, holdsLease: boolean) =>
      ({ id: "job_x", type: "calls.place", payload: { call_id: callId }, attempt: 1, maxAttempts: 3, workspaceId: owner.workspaceId, signal: new AbortController().signal, row: {} as never, complete: () => holdsLease }) satisfies RunningJob<{ call_id: string }>;
    const status = (id: string) => (ctx.sqlite.prepare("SELECT status, node_id FROM calls WHERE id = ?").get(id) as { status: string; node_id: string | null });

    queued("call_lease_gone");
    await placeCall(ctx, ctx.services.brains, ctx.carriers, job("call_lease_gone", false));
    expect(status("call_lease_gone")).toEqual({ status: "queued", node_id: null });
    expect(simulatedCalls.get("call_lease_gone")).toBeUndefined();

    queued("call_lease_held");
    await placeCall(ctx, ctx.services.brains, ctx.carriers, job("call_lease_held", true));
    expect(simulatedCalls.get("call_lease_held")).toBeDefined();
    expect(status("call_lease_held").node_id).toBe(ctx.nodeId);
  } finally {
    await server.stop();
  }
}, 30_000);
