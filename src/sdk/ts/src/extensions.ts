import type { RequestOptions } from "./client.js";
import { CallsResource } from "./generated/resources.js";
import type { Call } from "./generated/types.js";

const LIVE = new Set(["queued", "ringing", "in_progress"]);

export interface WaitOptions extends Omit<RequestOptions, "timeoutMs"> {
  /** How long to wait in all for the call to end, across every poll (default 120 s). */
  maxWaitMs?: number;
  /** Time between polls (default 500 ms). */
  intervalMs?: number;
  /** Each poll's own time-out (the client's `timeoutMs` by default). */
  requestTimeoutMs?: number;
  /** @deprecated The total wait, named like a per-request time-out: use `maxWaitMs`. */
  timeoutMs?: number;
}

/** Calls, plus waiting for one to end. */
export class Calls extends CallsResource {
  /** Polls until the call has ended (any state past queued, ringing and in progress) and returns it. */
  async wait(id: string, options: WaitOptions = {}): Promise<Call> {
    const { maxWaitMs, timeoutMs, intervalMs = 500, requestTimeoutMs, ...request } = options;
    const total = maxWaitMs ?? timeoutMs ?? 120_000;
    const deadline = Date.now() + total;
    for (;;) {
      const call = await this.get(id, { ...request, timeoutMs: requestTimeoutMs });
      if (!LIVE.has(call.status)) return call;
      if (Date.now() + intervalMs > deadline) throw new Error(`call ${id} still ${call.status} after waiting ${total} ms in all`);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
