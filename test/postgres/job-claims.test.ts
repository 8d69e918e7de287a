// Several processes claiming from one PostgreSQL queue, as several nodes' runners do: every job is
// handed to exactly one of them (10,000 jobs, three processes: issue 36's "exactly once under contention"). At READ COMMITTED a claim that reads the due jobs and then updates
// them hands a job to every claimer whose read came before the first update committed.
import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { join } from "node:path";
import { jobs } from "../../src/db/schema/index.ts";
import { enqueueJob } from "../../src/jobs/queue.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { createTestContext } from "../helpers/server.ts";

const WORKER = join(import.meta.dir, "..", "helpers", "claim-worker.ts");
const JOBS = 10_000;
const WORKERS = 3;

const env = createTestContext({ databaseUrl: freshDatabase() });
afterAll(() => env.close());

async function startWorker(url: string, holder: string) {
  const child = Bun.spawn([process.execPath, WORKER, url, "t.claim", holder], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const reader = child.stdout.getReader();
  let out = "";
  const read = async (until: (text: string) => boolean) => {
    while (!until(out)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`claim worker ${holder} ended early: ${out}${await new Response(child.stderr).text()}`);
      out += new TextDecoder().decode(value);
    }
  };
  await read((text) => text.startsWith("ready\n"));
  return {
    go: () => {
      child.stdin.write("go\n");
      child.stdin.flush();
    },
    async ran(): Promise<string[]> {
      await read((text) => text.endsWith("]\n"));
      expect(await child.exited).toBe(0);
      return JSON.parse(out.slice("ready\n".length));
    },
  };
}

test(`${WORKERS} processes claim ${JOBS} jobs from one database: each job runs exactly once`, async () => {
  const { ctx } = env;
  const ids = ctx.sqlite.transaction(() => Array.from({ length: JOBS }, (_, n) => enqueueJob(ctx, { type: "t.claim", payload: { n } }).id))();
  const workers = await Promise.all(Array.from({ length: WORKERS }, (_, n) => startWorker(ctx.config.databaseUrl, `worker-${n}`)));
  for (const worker of workers) worker.go();
  const ran = await Promise.all(workers.map((worker) => worker.ran()));

  const runs = new Map<string, number>();
  for (const id of ran.flat()) runs.set(id, (runs.get(id) ?? 0) + 1);
  const twice = [...runs].filter(([, count]) => count > 1);
  expect(twice).toEqual([]);
  expect(runs.size).toBe(JOBS);
  expect([...runs.keys()].sort()).toEqual([...ids].sort());
  console.log(`${JOBS} jobs claimed by ${WORKERS} processes: ${ran.map((share) => share.length).join(" / ")}`);
  // They really competed (how many each took varies with the machine's load).
  expect(ran.filter((share) => share.length > 0).length).toBeGreaterThanOrEqual(2);
  // One claim each, so one attempt each, and all finished.
  const rows = ctx.db.select({ state: jobs.state, attempt: jobs.attempt }).from(jobs).where(eq(jobs.type, "t.claim")).all();
  expect(rows.filter((row) => row.state !== "completed" || row.attempt !== 1)).toEqual([]);
}, 60_000);
