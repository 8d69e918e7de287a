import type { RequestOptions } from "./client.js";
import type { TestRunsResource } from "./generated/resources.js";
import type { TestRunRequest, TestRunWithResults } from "./generated/types.js";

const UNFINISHED = new Set(["queued", "running"]);

export interface RunAgentTestsOptions extends TestRunRequest, Omit<RequestOptions, "timeoutMs" | "idempotencyKey"> {
  /** How long to wait in all for the run to finish (default 1 hour); then the run is canceled. */
  maxWaitMs?: number;
  /** Time between polls (default 1 s). */
  intervalMs?: number;
  /** Each request's own time-out (the client's `timeoutMs` by default). */
  requestTimeoutMs?: number;
}

/**
 * Starts a test run and polls it until it has finished, calling `onProgress` with the run (and its
 * results so far) after each poll. An abort (`signal`) or the wait running out cancels the run.
 */
export async function runAgentTests(runs: TestRunsResource, agentId: string, options: RunAgentTestsOptions, onProgress?: (run: TestRunWithResults) => void): Promise<TestRunWithResults> {
  const { test_ids, cases, version, concurrency, maxWaitMs = 3_600_000, intervalMs = 1_000, requestTimeoutMs, ...request } = options;
  const created = await runs.create(agentId, { test_ids, cases, version, concurrency }, { ...request, timeoutMs: requestTimeoutMs });
  const deadline = Date.now() + maxWaitMs;
  try {
    for (;;) {
      const run = await runs.get(agentId, created.id, { ...request, timeoutMs: requestTimeoutMs });
      onProgress?.(run);
      if (!UNFINISHED.has(run.status)) return run;
      if (Date.now() + intervalMs > deadline) throw new Error(`test run ${run.id} still ${run.status} after waiting ${maxWaitMs} ms in all; canceled`);
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, intervalMs);
        request.signal?.addEventListener("abort", () => (clearTimeout(timer), reject(request.signal!.reason)), { once: true });
      });
    }
  } catch (error) {
    // Nobody waits for the run any more: its calls stop rather than run on unseen.
    await runs.cancel(agentId, created.id, { ...request, signal: undefined }).catch(() => undefined);
    throw error;
  }
}
