import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { jobs } from "../../src/db/schema/index.ts";
import { defaultBackoffMs } from "../../src/jobs/backoff.ts";
import { claimJobs, completeJob, failJob, pruneFinishedJobs, rescueExpiredLeases } from "../../src/jobs/leases.ts";
import { JobDiscard, JobRetryLater, JobSnooze } from "../../src/jobs/outcomes.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { JobRunner } from "../../src/jobs/runner.ts";
import { holdTableLock } from "../helpers/postgres-lock.ts";
import { createTestContext, ON_POSTGRES } from "../helpers/server.ts";
import { holdWriteLock } from "../helpers/write-lock.ts";

let env: ReturnType<typeof createTestContext>;
afterEach(() => env?.close());

const row = (id: string) => env.ctx.db.select().from(jobs).where(eq(jobs.id, id)).get()!;

describe("enqueue and claim", () => {
  test("a job is claimed once, with a lease, in due order", () => {
    env = createTestContext();
    const { ctx, clock } = env;
    const second = enqueueJob(ctx, { type: "t.work", payload: { n: 1 } }).id;
    const first = enqueueJob(ctx, { type: "t.work", payload: { n: 2 }, runAt: clock.now() - 1 }).id;
    clock.advance(1);
    const third = enqueueJob(ctx, { type: "t.work", payload: { n: 3 } }).id;
    const future = enqueueJob(ctx, { type: "t.work", payload: { n: 4 }, runAt: clock.now() + 60_000 }).id;
    expect(row(future).state).toBe("scheduled");
    expect(claimJobs(ctx.db, "t.work", 2, "worker-a", clock.now(), 30_000).map((j) => j.id)).toEqual([first, second]);
    const claimed = [row(first), ...claimJobs(ctx.db, "t.work", 10, "worker-a", clock.now(), 30_000)];
    expect(claimed.map((j) => j.id)).toEqual([first, third]);
    expect(claimed[0]).toMatchObject({ state: "executing", attempt: 1, lockedBy: "worker-a", lockedUntil: clock.now() + 30_000 });
    expect(claimJobs(ctx.db, "t.work", 10, "worker-b", clock.now(), 30_000)).toEqual([]);
    clock.advance(60_000);
    expect(claimJobs(ctx.db, "t.work", 10, "worker-b", clock.now(), 30_000).map((j) => j.id)).toEqual([future]);
  });

  test("a unique key admits one active job; once it finishes the key is free again", () => {
    env = createTestContext();
    const { ctx, clock } = env;
    const first = enqueueJob(ctx, { type: "t.once", payload: {}, uniqueKey: "k1" });
    const second = enqueueJob(ctx, { type: "t.once", payload: {}, uniqueKey: "k1" });
    expect(first.inserted).toBe(true);
    expect(second).toEqual({ id: first.id, inserted: false });
    const [claimed] = claimJobs(ctx.db, "t.once", 1, "w", clock.now(), 1000);
    completeJob(ctx.db, claimed.id, "w", clock.now());
    expect(enqueueJob(ctx, { type: "t.once", payload: {}, uniqueKey: "k1" }).inserted).toBe(true);
  });

  test("only the lease holder can finish; an expired lease is rescued and the job runs again", () => {
    env = createTestContext();
    const { ctx, clock } = env;
    const id = enqueueJob(ctx, { type: "t.slow", payload: {}, maxAttempts: 2 }).id;
    claimJobs(ctx.db, "t.slow", 1, "crashed", clock.now(), 1000);
    clock.advance(1001);
    expect(rescueExpiredLeases(ctx.db, clock.now())).toBe(1);
    expect(row(id)).toMatchObject({ state: "retryable", lockedBy: null });
    expect(row(id).errors[0].error).toContain("lease expired");
    const [again] = claimJobs(ctx.db, "t.slow", 1, "healthy", clock.now(), 1000);
    expect(again.attempt).toBe(2);
    // The crashed worker wakes up and tries to finish: nothing changes.
    expect(completeJob(ctx.db, id, "crashed", clock.now())).toBe(false);
    expect(row(id).state).toBe("executing");
    clock.advance(1001);
    rescueExpiredLeases(ctx.db, clock.now());
    expect(row(id).state).toBe("discarded"); // that was its last attempt
  });

  test("failures keep an error history; retries back off with jitter and a cap", () => {
    env = createTestContext();
    const { ctx, clock } = env;
    const id = enqueueJob(ctx, { type: "t.flaky", payload: {} }).id;
    const [claimed] = claimJobs(ctx.db, "t.flaky", 1, "w", clock.now(), 1000);
    failJob(ctx.db, claimed, "w", clock.now(), { retryAt: clock.now() + 15_000, error: "boom" });
    expect(row(id)).toMatchObject({ state: "retryable", runAt: clock.now() + 15_000 });
    expect(row(id).errors).toEqual([{ attempt: 1, at: clock.now(), error: "boom" }]);
    const delays = [1, 2, 3, 10, 30].map((attempt) => defaultBackoffMs(attempt, () => 0.5));
    expect(delays).toEqual([15_000, 30_000, 60_000, 3_600_000, 3_600_000]);
    expect(defaultBackoffMs(1, () => 0)).toBe(12_000);
    expect(defaultBackoffMs(1, () => 1)).toBe(18_000);
  });

  test("finished jobs are pruned after their retention; active ones never", () => {
    env = createTestContext();
    const { ctx, clock } = env;
    const done = enqueueJob(ctx, { type: "t.p", payload: {} }).id;
    const waiting = enqueueJob(ctx, { type: "t.q", payload: {}, runAt: clock.now() + 10 * 86_400_000 }).id;
    const [claimed] = claimJobs(ctx.db, "t.p", 1, "w", clock.now(), 1000);
    completeJob(ctx.db, claimed.id, "w", clock.now());
    clock.advance(2 * 86_400_000);
    expect(pruneFinishedJobs(ctx.db, clock.now() - 86_400_000, clock.now() - 30 * 86_400_000)).toBe(1);
    expect(env.ctx.db.select().from(jobs).all().map((j) => j.id)).toEqual([waiting]);
    expect(done).not.toBe(waiting);
  });
});

describe("the runner", () => {
  test("runs handlers, records outcomes, and honours snooze, discard and retry-later", async () => {
    env = createTestContext();
    const { ctx, clock } = env;
    const runner = new JobRunner(ctx, { leaseMs: 5000 });
    const seen: string[] = [];
    runner.register<{ kind: string }>("t.outcome", async (job) => {
      seen.push(`${job.payload.kind}#${job.attempt}`);
      if (job.payload.kind === "snooze") throw new JobSnooze(clock.now() + 60_000);
      if (job.payload.kind === "discard") throw new JobDiscard("target gone");
      if (job.payload.kind === "later") throw new JobRetryLater("busy", clock.now() + 120_000);
      if (job.payload.kind === "fail") throw new Error("nope");
    }, { maxAttempts: 3 });
    const ids = Object.fromEntries(["ok", "snooze", "discard", "later", "fail"].map((kind) => [kind, enqueueJob(ctx, { type: "t.outcome", payload: { kind }, maxAttempts: 3 }).id]));
    await runner.drain();
    expect(row(ids.ok).state).toBe("completed");
    expect(row(ids.snooze)).toMatchObject({ state: "scheduled", attempt: 0, runAt: clock.now() + 60_000 });
    expect(row(ids.discard)).toMatchObject({ state: "discarded", attempt: 1 });
    expect(row(ids.later)).toMatchObject({ state: "retryable", runAt: clock.now() + 120_000 });
    expect(row(ids.fail).state).toBe("retryable");
    clock.advance(3_600_000);
    await runner.drain();
    clock.advance(3_600_000);
    await runner.drain();
    expect(row(ids.fail)).toMatchObject({ state: "discarded", attempt: 3 });
    expect(row(ids.fail).errors.map((e) => e.attempt)).toEqual([1, 2, 3]);
    expect(seen.filter((s) => s.startsWith("snooze"))).toEqual(["snooze#1", "snooze#1", "snooze#1"]); // never spends an attempt
  });

  test("per-type concurrency is respected", async () => {
    env = createTestContext();
    const { ctx } = env;
    const runner = new JobRunner(ctx);
    let running = 0;
    let peak = 0;
    runner.register("t.limited", async () => {
      running++;
      peak = Math.max(peak, running);
      await Bun.sleep(5);
      running--;
    }, { concurrency: 3 });
    for (let i = 0; i < 20; i++) enqueueJob(ctx, { type: "t.limited", payload: {} });
    await runner.drain();
    expect(peak).toBe(3);
    expect(ctx.db.select().from(jobs).all().every((j) => j.state === "completed")).toBe(true);
  });

  test("shutdown waits for running handlers up to the deadline, then hands the rest back", async () => {
    env = createTestContext();
    const { ctx } = env;
    const runner = new JobRunner(ctx);
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => (release = resolve));
    runner.register("t.quick", async () => {});
    runner.register("t.stuck", async (job) => {
      await Promise.race([blocked, new Promise((resolve) => job.signal.addEventListener("abort", resolve))]);
    });
    const quick = enqueueJob(ctx, { type: "t.quick", payload: {} }).id;
    const stuck = enqueueJob(ctx, { type: "t.stuck", payload: {} }).id;
    await runner.tick();
    await Bun.sleep(10);
    await runner.stop(50);
    expect(row(quick).state).toBe("completed");
    expect(row(stuck)).toMatchObject({ state: "scheduled", attempt: 0, lockedBy: null }); // back in the queue, try not spent
    expect(await runner.tick()).toBe(0); // stopped: claims nothing
    release();
  });

  test("a database that refuses writes while a job runs is logged, never thrown out of the runner; the job runs again after its lease", async () => {
    env = createTestContext();
    const { ctx, clock, logs } = env;
    const runner = new JobRunner(ctx, { leaseMs: 150 }); // its lease is renewed every 50 ms while it runs
    let release!: () => void;
    let runs = 0;
    runner.register("t.locked", async () => {
      if (++runs === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    const id = enqueueJob(ctx, { type: "t.locked", payload: {} }).id;
    await runner.tick();
    // SQLite: another connection holds the write lock. PostgreSQL: another connection locks the jobs table.
    const lock = ON_POSTGRES ? await holdTableLock(ctx, "jobs", 20) : holdWriteLock(ctx, 20);
    const refusal = ON_POSTGRES ? "canceling statement due to lock timeout" : "database is locked";
    await Bun.sleep(120); // renewals fail meanwhile
    release();
    await Bun.sleep(20); // the completion fails, and so does recording the failure
    await lock.release();
    expect(logs.some((line) => line.includes("could not renew") && line.includes(refusal))).toBe(true);
    expect(logs.some((line) => line.includes("could not record the outcome") && line.includes(refusal))).toBe(true);
    expect(row(id).state).toBe("executing"); // nothing recorded: the lease will run out
    clock.advance(151);
    expect(rescueExpiredLeases(ctx.db, clock.now())).toBe(1);
    await runner.drain();
    expect(runs).toBe(2);
    expect(row(id).state).toBe("completed");
  });

  test("jobs that were due while the process was down run after a restart", async () => {
    env = createTestContext();
    const { ctx, clock } = env;
    const id = enqueueJob(ctx, { type: "t.later", payload: {}, runAt: clock.now() + 3_600_000 }).id;
    clock.advance(5 * 3_600_000); // "down" past its time
    const runner = new JobRunner(ctx);
    let ran = 0;
    runner.register("t.later", async () => void ran++);
    await runner.drain();
    expect(ran).toBe(1);
    expect(row(id).state).toBe("completed");
  });
});
