import type { AppContext } from "../../core/context.ts";
import { JobSnooze } from "../../jobs/outcomes.ts";
import type { RunningJob } from "../../jobs/runner.ts";
import type { CaseVerdict, TestCaseDefinition } from "./definition.ts";
import { resultDiff } from "./diff.ts";
import type { ResultRow, RunRow } from "./models.ts";
import { agentTestsPorts } from "./ports.ts";
import * as repo from "./repo.ts";
import { abandonRun, finishRun, liveRunsOf } from "./runs.ts";

/** How often a running run looks whether it was canceled (through another node, or while this one was busy). */
const CANCEL_POLL_MS = 1000;
/** A case's call is ended by the runner at its timeout; past this much more, the case is abandoned as an error. */
const TIMEOUT_GRACE_MS = 30_000;

/**
 * The `agent_tests.run` job: takes the run's queued cases in order, at most `concurrency` at once, runs
 * each as a test call through the runner, and writes each result (with its diff against the case's
 * previous result) as it finishes; then the run's verdict and its event. A run its node lost is taken
 * up again: the cases left running there are queued again (their calls ended with that node).
 */
export async function runTestRun(ctx: AppContext, job: RunningJob<{ run_id: string }>): Promise<void> {
  const start = ctx.sqlite.transaction(() => {
    const run = repo.runById(ctx.db, job.payload.run_id);
    if (!run || (run.status !== "queued" && run.status !== "running")) return null;
    const now = ctx.clock.now();
    repo.requeueRunning(ctx.db, run.id);
    repo.setRunStatus(ctx.db, run.id, ["queued", "running"], { status: "running", startedAt: run.startedAt ?? now, updatedAt: now });
    return { ...run, status: "running" as const };
  })();
  if (!start) return;
  const abort = new AbortController();
  const stop = () => abort.abort();
  job.signal.addEventListener("abort", stop);
  liveRunsOf(ctx).set(start.id, abort);
  const watch = setInterval(() => {
    try {
      if (repo.runById(ctx.db, start.id)?.status !== "running") abort.abort();
    } catch {
      // The database is away for a moment: the next look tells.
    }
  }, CANCEL_POLL_MS);
  let failure: unknown = null;
  try {
    const worker = async () => {
      while (!abort.signal.aborted) {
        const result = repo.claimNextResult(ctx.db, start.id, ctx.clock.now());
        if (!result) return;
        await runOne(ctx, start, result, abort.signal, job.signal);
      }
    };
    // A worker that fails (the database refused a write) stops the others, which wind their calls down first.
    const outcomes = await Promise.allSettled(Array.from({ length: start.concurrency }, () => worker().catch((error) => (abort.abort(), Promise.reject(error)))));
    failure = outcomes.find((outcome) => outcome.status === "rejected")?.reason ?? null;
  } finally {
    clearInterval(watch);
    job.signal.removeEventListener("abort", stop);
    liveRunsOf(ctx).delete(start.id);
  }
  // The node is stopping (or lost the job): the cases left running are taken up again by the next attempt.
  if (job.signal.aborted) throw new JobSnooze(ctx.clock.now(), "the node stopped during the run; its unfinished cases run again");
  if (failure) {
    // Retried (its unfinished cases queued again) until the last attempt, which gives them up as errors: a run always ends.
    if (job.attempt < job.maxAttempts) throw failure;
    abandonRun(ctx, start.id, `the run could not go on: ${(failure as Error).message}`, () => job.complete());
    return;
  }
  finishRun(ctx, start.id, () => job.complete());
}

function whenAborted(signal: AbortSignal): Promise<null> {
  return new Promise((resolve) => (signal.aborted ? resolve(null) : signal.addEventListener("abort", () => resolve(null), { once: true })));
}

/** One case: its call through the runner, then its result written (canceled when its run was). */
async function runOne(ctx: AppContext, run: RunRow, result: ResultRow, runSignal: AbortSignal, jobSignal: AbortSignal): Promise<void> {
  const definition = result.definition as unknown as TestCaseDefinition;
  const caseAbort = new AbortController();
  const stop = () => caseAbort.abort();
  runSignal.addEventListener("abort", stop);
  const timeoutMs = (definition.timeout_seconds ?? 120) * 1000 + TIMEOUT_GRACE_MS;
  const timer = setTimeout(stop, timeoutMs);
  let verdict: CaseVerdict | null;
  try {
    const verdictOf = agentTestsPorts(ctx).runCase({ workspaceId: run.workspaceId, agentId: run.agentId, version: run.agentVersion, runId: run.id, resultId: result.id, definition }, caseAbort.signal);
    // A node stopping does not wait for its cases to wind down: their calls end with the node, and the case runs again.
    verdict = await Promise.race([verdictOf, whenAborted(jobSignal)]);
  } catch (error) {
    verdict = { status: "error", callId: null, checks: [], transcript: [], latencies: [], error: (error as Error).message };
  } finally {
    clearTimeout(timer);
    runSignal.removeEventListener("abort", stop);
  }
  if (!verdict || jobSignal.aborted) return;
  ctx.sqlite.transaction(() => {
    const canceled = repo.runById(ctx.db, run.id)?.status === "canceled";
    const now = ctx.clock.now();
    const status = canceled ? "canceled" : verdict.status;
    const previous = canceled ? undefined : repo.previousResult(ctx.db, run.agentId, result.caseName, run.id, now);
    const written = repo.finishResult(ctx.db, result.id, {
      status,
      callId: verdict.callId,
      checks: verdict.checks,
      transcript: verdict.transcript,
      latencies: verdict.latencies,
      error: verdict.error,
      diff: previous ? resultDiff(previous, status, verdict.transcript) : null,
      completedAt: now,
    });
    if (written && !canceled) repo.countVerdict(ctx.db, run.id, verdict.status, now);
  })();
}
