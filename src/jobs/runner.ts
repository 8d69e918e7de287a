import type { AppContext } from "../core/context.ts";
import { randomBase62 } from "../lib/random.ts";
import { SECOND } from "../lib/time.ts";
import { defaultBackoffMs } from "./backoff.ts";
import { claimJobs, completeJob, failJob, nextDueAt, releaseJob, renewLease, snoozeJob } from "./leases.ts";
import { JobDiscard, JobRetryLater, JobSnooze } from "./outcomes.ts";
import type { JobRow } from "./queue.ts";
import { failureLevel } from "../db/refusals.ts";
import { countRefusal } from "../core/refusal-count.ts";
import { jobOutcomes } from "./metrics.ts";

export interface RunningJob<P = Record<string, unknown>> {
  id: string;
  type: string;
  payload: P;
  /** 1 for the first try. */
  attempt: number;
  maxAttempts: number;
  workspaceId: string | null;
  /** Aborted when the runner shuts down or the lease is lost: stop early, the job will run again. */
  signal: AbortSignal;
  row: JobRow;
  /**
   * Marks the job completed now. Call it inside the handler's own final transaction so the outcome
   * and the job's completion commit together (one write instead of two); returning completes it anyway.
   * False when the lease is no longer this runner's (it expired, or its node was found lost).
   */
  complete(): boolean;
}

export interface JobTypeOptions {
  /** Simultaneous jobs of this type in this process. */
  concurrency?: number;
  maxAttempts?: number;
  /** When to retry after failed attempt `attempt` (absolute epoch ms); default capped exponential backoff. */
  retryAt?: (job: JobRow, now: number) => number;
}

type Handler = (job: RunningJob<any>) => Promise<void>;

interface Registration {
  handler: Handler;
  concurrency: number;
  maxAttempts: number;
  retryAt: (job: JobRow, now: number) => number;
  running: number;
}

export interface RunnerOptions {
  leaseMs?: number;
  /** Longest sleep between looks at the table, for jobs another process enqueued. */
  pollMs?: number;
  /** Who holds the leases: the node id in a server (a survivor releases a lost node's jobs by it); random otherwise. */
  holder?: string;
}

/**
 * Claims due jobs with a lease, runs their handlers (up to each type's concurrency), renews the
 * lease while they run, and records the outcome only while still holding the lease.
 */
export class JobRunner {
  readonly holder: string;
  private types = new Map<string, Registration>();
  private running = new Map<string, { promise: Promise<void>; abort: AbortController; row: JobRow }>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private started = false;
  private stopping = false;
  private ticking = false;
  private tickAgain = false;
  /** Types worth a claim at the next tick; "all" after an enqueue of unknown type, a start, or a poll. */
  private dueTypes: Set<string> | "all" = "all";
  readonly leaseMs: number;
  private pollMs: number;
  private readonly outcomes: ReturnType<typeof jobOutcomes>;

  constructor(private ctx: AppContext, options: RunnerOptions = {}) {
    this.leaseMs = options.leaseMs ?? 30 * SECOND;
    this.pollMs = options.pollMs ?? 1000;
    this.holder = options.holder ?? `runner_${randomBase62(12)}`;
    this.outcomes = jobOutcomes(ctx.metrics);
  }

  register<P>(type: string, handler: (job: RunningJob<P>) => Promise<void>, options: JobTypeOptions = {}): void {
    this.types.set(type, {
      handler: handler as Handler,
      concurrency: options.concurrency ?? 10,
      maxAttempts: options.maxAttempts ?? 20,
      retryAt: options.retryAt ?? ((job, now) => now + defaultBackoffMs(job.attempt)),
      running: 0,
    });
    // Each type's counters start at 0, so a first failure shows as a rise.
    for (const outcome of Object.values(this.outcomes)) outcome.labels(type);
  }

  /** The job types this runner handles. */
  typeNames(): string[] {
    return [...this.types.keys()];
  }

  /** Default attempts for enqueuers that do not choose. */
  maxAttemptsOf(type: string): number | undefined {
    return this.types.get(type)?.maxAttempts;
  }

  get isRunning(): boolean {
    return this.started && !this.stopping;
  }

  start(): void {
    this.started = true;
    this.wake();
  }

  /**
   * Look for work now: for jobs of `type` (after an enqueue of one, or a slot of it freeing up), or
   * of every type. Wakes in the same turn of the event loop make one tick.
   */
  wake(type?: string): void {
    if (!this.started || this.stopping) return;
    if (type === undefined || !this.types.has(type)) this.dueTypes = "all";
    else if (this.dueTypes !== "all") this.dueTypes.add(type);
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick("woken"), 0);
  }

  /** Claims and starts every due job there is capacity for (of the types woken, or all); returns how many started. */
  async tick(types: "woken" | "all" = "all"): Promise<number> {
    if (types === "all") this.dueTypes = "all";
    if (this.stopping) return 0;
    if (this.ticking) {
      this.tickAgain = true;
      return 0;
    }
    this.ticking = true;
    let started = 0;
    let busy = false;
    try {
      do {
        this.tickAgain = false;
        const now = this.ctx.clock.now();
        const due = this.dueTypes;
        this.dueTypes = new Set();
        for (const [type, registration] of this.types) {
          if (registration.running > 0) busy = true;
          if (due !== "all" && !due.has(type)) continue;
          const claimed = claimJobs(this.ctx.db, type, registration.concurrency - registration.running, this.holder, now, this.leaseMs);
          for (const row of claimed) this.execute(row, registration);
          started += claimed.length;
          if (registration.running > 0) busy = true;
        }
      } while (this.tickAgain && !this.stopping);
    } catch (error) {
      countRefusal(this.ctx.metrics, "jobs", error);
      this.ctx.logger[failureLevel(error)]("job runner tick failed", { error });
    } finally {
      this.ticking = false;
      this.scheduleNext(busy);
    }
    return started;
  }

  /** Tests: run until nothing is due and nothing is running (the clock does not move by itself). */
  async drain(maxRounds = 10_000): Promise<void> {
    for (let round = 0; round < maxRounds; round++) {
      await this.tick();
      if (this.running.size === 0) {
        if ((await this.tick()) === 0 && this.running.size === 0) return;
        continue;
      }
      await Promise.race([...this.running.values()].map((r) => r.promise));
    }
    throw new Error("drain: jobs kept coming");
  }

  /** Stop claiming; wait for running handlers until the deadline; hand back whatever is left. */
  async stop(deadlineMs = 10 * SECOND): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    const pending = [...this.running.values()].map((r) => r.promise);
    const timedOut = await Promise.race([
      Promise.allSettled(pending).then(() => false),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(true), deadlineMs).unref?.()),
    ]);
    if (!timedOut) return;
    for (const [id, run] of this.running) {
      run.abort.abort();
      releaseJob(this.ctx.db, id, this.holder, this.ctx.clock.now());
      this.ctx.logger.warn("job released at shutdown", { job_id: id, type: run.row.type });
    }
  }

  /** While jobs run, each completion wakes the runner; only an idle runner asks when work is next due. */
  private scheduleNext(busy: boolean): void {
    if (!this.started || this.stopping) return;
    if (this.timer) clearTimeout(this.timer);
    let next: number | null = null;
    try {
      if (!busy) next = nextDueAt(this.ctx.db, [...this.types.keys()]);
    } catch (error) {
      // The database failing (locked past its busy timeout, disk gone) must not stop the polling that
      // finds the work again once it is back: called from tick's finally, a throw here would end it.
      countRefusal(this.ctx.metrics, "jobs", error);
      this.ctx.logger[failureLevel(error)]("job runner could not read when work is next due", { error });
    }
    const now = this.ctx.clock.now();
    const delay = next === null ? this.pollMs : Math.max(0, Math.min(this.pollMs, next - now));
    this.timer = setTimeout(() => {
      void this.tick("all"); // a poll looks at everything (jobs enqueued by another process, retries now due)
    }, delay);
    this.timer.unref?.();
  }

  private execute(row: JobRow, registration: Registration): void {
    registration.running++;
    const abort = new AbortController();
    const renewEvery = Math.max(50, Math.floor(this.leaseMs / 3));
    const renewal = setInterval(() => {
      try {
        if (!renewLease(this.ctx.db, row.id, this.holder, this.ctx.clock.now() + this.leaseMs)) abort.abort();
      } catch (error) {
        // Locked or failing: try again at the next renewal; only a lease really lost stops the handler.
        countRefusal(this.ctx.metrics, "jobs", error);
        this.ctx.logger.warn("could not renew a job's lease", { job_id: row.id, type: row.type, error });
      }
    }, renewEvery);
    renewal.unref?.();
    const job: RunningJob = {
      id: row.id,
      type: row.type,
      payload: row.payload,
      attempt: row.attempt,
      maxAttempts: row.maxAttempts,
      workspaceId: row.workspaceId,
      signal: abort.signal,
      row,
      complete: () => (completed = completeJob(this.ctx.db, row.id, this.holder, this.ctx.clock.now())),
    };
    let completed = false;
    const promise = (async () => {
      try {
        await registration.handler(job);
        if (!completed) completed = completeJob(this.ctx.db, row.id, this.holder, this.ctx.clock.now());
        if (completed) this.outcomes.completed.labels(row.type).inc();
      } catch (error) {
        try {
          this.recordFailure(row, registration, error);
        } catch (recordError) {
          countRefusal(this.ctx.metrics, "jobs", recordError);
          // Nothing is recorded, so the lease runs out and the job runs again (handlers tolerate a rerun).
          this.ctx.logger[failureLevel(recordError)]("could not record the outcome of a job; it runs again once its lease expires", { job_id: row.id, type: row.type, error: recordError });
        }
      } finally {
        clearInterval(renewal);
        registration.running--;
        this.running.delete(row.id);
        // Refill a busy type in batches (a quarter of its slots at a time), not one claim per finished
        // job; the poll still picks up anything a slot could take.
        if (registration.running <= registration.concurrency - Math.max(1, Math.floor(registration.concurrency / 4))) this.wake(row.type);
      }
    })();
    this.running.set(row.id, { promise, abort, row });
  }

  private recordFailure(row: JobRow, registration: Registration, error: unknown): void {
    const now = this.ctx.clock.now();
    const message = error instanceof Error ? error.message : String(error);
    if (error instanceof JobSnooze) {
      snoozeJob(this.ctx.db, row.id, this.holder, now, error.runAt);
      return;
    }
    let retryAt: number | null = null;
    if (!(error instanceof JobDiscard) && row.attempt < row.maxAttempts) {
      retryAt = registration.retryAt(row, now);
      if (error instanceof JobRetryLater) retryAt = Math.max(retryAt, error.notBefore);
    }
    if (failJob(this.ctx.db, row, this.holder, now, { retryAt, error: message })) (retryAt === null ? this.outcomes.failed : this.outcomes.retried).labels(row.type).inc();
    if (retryAt === null && !(error instanceof JobDiscard)) {
      this.ctx.logger.warn("job failed for good", { job_id: row.id, type: row.type, attempts: row.attempt, error: message });
    }
  }
}
