import type { ApiClient, RequestOptions } from "./client.js";

/** What a test run's answer holds (with `results` when read by id). */
export interface AgentTestRunState {
  id: string;
  status: string;
  [field: string]: unknown;
}

const UNFINISHED = new Set(["queued", "running"]);

export interface RunAgentTestsOptions extends Omit<RequestOptions, "timeoutMs" | "idempotencyKey"> {
  /** Stored cases to run (`atest_…`); default: all of the agent's. */
  test_ids?: string[];
  /** Cases given inline (a suite file's `tests`) instead of stored ones. */
  cases?: unknown[];
  /** The agent version to test (default: the live one); a draft is tested before it is published. */
  version?: number;
  /** Cases run at once (1–16, default 4). */
  concurrency?: number;
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
export async function runAgentTests<Run extends AgentTestRunState>(api: ApiClient, agentId: string, options: RunAgentTestsOptions, onProgress?: (run: Run) => void): Promise<Run> {
  const { test_ids, cases, version, concurrency, maxWaitMs = 3_600_000, intervalMs = 1_000, requestTimeoutMs, signal, ...request } = options;
  const path = `/v1/agents/${encodeURIComponent(agentId)}/test-runs`;
  const created = await api.request<Run>({ method: "POST", path, json: { test_ids, cases, version, concurrency }, response: "json" }, { ...request, signal, timeoutMs: requestTimeoutMs });
  const deadline = Date.now() + maxWaitMs;
  try {
    for (;;) {
      const run = await api.request<Run>({ method: "GET", path: `${path}/${encodeURIComponent(created.id)}`, response: "json" }, { ...request, signal, timeoutMs: requestTimeoutMs });
      onProgress?.(run);
      if (!UNFINISHED.has(run.status)) return run;
      if (Date.now() + intervalMs > deadline) throw new Error(`test run ${run.id} still ${run.status} after waiting ${maxWaitMs} ms in all; canceled`);
      await new Promise((resolve, reject) => {
        const timer = setTimeout(resolve, intervalMs);
        signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
      });
    }
  } catch (error) {
    // Nobody waits for the run any more: its calls stop rather than run on unseen.
    await api.request({ method: "POST", path: `${path}/${encodeURIComponent(created.id)}/cancel`, response: "json" }, request).catch(() => undefined);
    throw error;
  }
}
