import type { RequestOptions } from "./client.js";
import { CallsResource } from "./generated/resources.js";
import type { Call } from "./generated/types.js";

const LIVE = new Set(["queued", "ringing", "in_progress"]);

/** Calls, plus waiting for one to end. */
export class Calls extends CallsResource {
  /** Polls until the call has ended (any state past queued, ringing and in progress) and returns it. */
  async wait(id: string, options: { timeoutMs?: number; intervalMs?: number } & RequestOptions = {}): Promise<Call> {
    const { timeoutMs = 120_000, intervalMs = 500, ...request } = options;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const call = await this.get(id, request);
      if (!LIVE.has(call.status)) return call;
      if (Date.now() + intervalMs > deadline) throw new Error(`call ${id} still ${call.status} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
