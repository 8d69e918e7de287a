import type { AppContext } from "../core/context.ts";
import { deliverWebhook } from "../webhooks/delivery.ts";
import { DELIVER_JOB } from "../webhooks/outbox.ts";
import { INDEX_JOB, indexSource } from "../knowledge/indexing.ts";

/** Every job type the server runs, registered once per context. */
export function registerJobHandlers(ctx: AppContext): void {
  // Deliveries wait on the network, not the CPU: many may be in flight on a small box.
  ctx.jobs.register<{ delivery_id: string }>(DELIVER_JOB, (job) => deliverWebhook(ctx, job), {
    concurrency: 32,
    maxAttempts: 50,
    retryAt: (_job, now) => now, // the handler names the exact time (its own schedule) with JobRetryLater
  });
  // Embedding is CPU work on this box (the built-in embedder): two at a time leave room for requests.
  ctx.jobs.register<{ source_id: string }>(INDEX_JOB, (job) => indexSource(ctx, job), { concurrency: 2, maxAttempts: 5 });
}
