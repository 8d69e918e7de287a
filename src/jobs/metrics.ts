// The queue as an operator watches it: what waits, what runs, what was retried or given up, by job
// type. Outcomes are counted by this process's runner as they happen; the queue's state is read from
// the jobs table at each scrape (it is the truth, whichever process enqueued or claims).
import type { Statement } from "better-sqlite3";
import type { AppContext } from "../core/context.ts";
import type { MetricsRegistry } from "../core/metrics.ts";

export type JobOutcome = "completed" | "retried" | "failed";

const OUTCOME_HELP: Record<JobOutcome, string> = {
  completed: "Jobs this process finished, by type.",
  retried: "Job attempts that failed and were scheduled to run again (with backoff), by type.",
  failed: "Jobs given up for good (their last attempt failed, or the handler discarded them), by type.",
};

export function jobOutcomes(metrics: MetricsRegistry) {
  const family = (outcome: JobOutcome) => metrics.counter(`parley_jobs_${outcome}_total`, OUTCOME_HELP[outcome], ["type"]);
  return { completed: family("completed"), retried: family("retried"), failed: family("failed") };
}

interface QueueRow {
  type: string;
  due: number;
  claimable: number;
  oldest: number;
}

// Literal states, as the partial indexes' conditions spell them: both reads stay inside jobs_due_idx and jobs_leases_idx.
const statements = new WeakMap<AppContext["sqlite"], { queue: Statement<[number]>; running: Statement<[]> }>();

function queueStatements(ctx: AppContext) {
  let found = statements.get(ctx.sqlite);
  if (!found) {
    found = {
      queue: ctx.sqlite.prepare("SELECT type, sum(CASE WHEN run_at <= ? THEN 1 ELSE 0 END) AS due, count(*) AS claimable, min(run_at) AS oldest FROM jobs WHERE state IN ('available', 'scheduled', 'retryable') GROUP BY type"),
      running: ctx.sqlite.prepare("SELECT type, count(*) AS running FROM jobs WHERE state = 'executing' GROUP BY type"),
    };
    statements.set(ctx.sqlite, found);
  }
  return found;
}

/** Declares the queue's gauges and reads them at each scrape, for the job types `types()` names (others count as `other`). */
export function jobQueueMetrics(ctx: AppContext, types: () => string[]): void {
  const metrics = ctx.metrics;
  jobOutcomes(metrics);
  const queued = metrics.gauge("parley_jobs_queued", "Jobs due now and waiting for a worker, by type.", ["type"]);
  const scheduled = metrics.gauge("parley_jobs_scheduled", "Jobs waiting for a later time (a retry's backoff, a delayed run), by type.", ["type"]);
  const running = metrics.gauge("parley_jobs_running", "Jobs a worker holds now (any process on this database), by type.", ["type"]);
  const oldest = metrics.gauge("parley_jobs_oldest_due_age_seconds", "How long the longest-waiting due job has been due (0 when none is), by type.", ["type"]);
  metrics.onCollect("jobs", () => {
    const known = new Set(types());
    const label = (type: string) => (known.has(type) ? type : "other");
    const now = ctx.clock.now();
    const { queue, running: executing } = queueStatements(ctx);
    const rows = queue.all(now) as QueueRow[];
    const held = executing.all() as { type: string; running: number }[];
    for (const family of [queued, scheduled, running, oldest]) {
      family.reset();
      for (const type of known) family.labels(type).set(0);
    }
    for (const row of rows) {
      queued.labels(label(row.type)).inc(row.due);
      scheduled.labels(label(row.type)).inc(row.claimable - row.due);
      if (row.due > 0) {
        const age = oldest.labels(label(row.type));
        age.set(Math.max(age.value, (now - row.oldest) / 1000));
      }
    }
    for (const row of held) running.labels(label(row.type)).inc(row.running);
  });
}
