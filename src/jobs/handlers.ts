import type { AppContext } from "../core/context.ts";
import { deliverWebhook } from "../webhooks/delivery.ts";
import { DELIVER_JOB } from "../webhooks/outbox.ts";
import { INDEX_JOB, indexSource } from "../knowledge/indexing.ts";
import { FINALIZE_JOB, registerCallEndHook } from "../modules/calls/lifecycle.ts";
import { finalizeCall } from "../modules/calls/finalize.ts";
import { PLACE_JOB } from "../modules/calls/service.ts";
import { DISPATCH_JOB, dispatchCampaign } from "../modules/campaigns/dispatcher.ts";
import { recordCampaignOutcome } from "../modules/campaigns/outcomes.ts";
import { RUN_JOB } from "../modules/schedules/service.ts";
import { runSchedule } from "../modules/schedules/runner.ts";
import { placeCall } from "../voice/runtime/connect.ts";

/** Every job type the server runs, registered once per context. */
export function registerJobHandlers(ctx: AppContext): void {
  // A campaign contact moves on in the same transaction as its call's end (a Set: registering twice is harmless).
  registerCallEndHook(recordCampaignOutcome);
  // Deliveries wait on the network, not the CPU: many may be in flight on a small box.
  ctx.jobs.register<{ delivery_id: string }>(DELIVER_JOB, (job) => deliverWebhook(ctx, job), {
    concurrency: 32,
    maxAttempts: 50,
    retryAt: (_job, now) => now, // the handler names the exact time (its own schedule) with JobRetryLater
  });
  // Embedding is CPU work on this box (the built-in embedder): two at a time leave room for requests.
  ctx.jobs.register<{ source_id: string }>(INDEX_JOB, (job) => indexSource(ctx, job), { concurrency: 2, maxAttempts: 5 });
  // Dialing only starts a call (the call then lives in memory), so many can be placed at once.
  ctx.jobs.register<{ call_id: string }>(PLACE_JOB, (job) => placeCall(ctx, job), { concurrency: 16, maxAttempts: 1 });
  // Extraction may wait on a model for seconds; a failed attempt retries with backoff.
  ctx.jobs.register<{ call_id: string; slots: Record<string, unknown> }>(FINALIZE_JOB, (job) => finalizeCall(ctx, job), { concurrency: 4, maxAttempts: 5 });
  // One dispatcher job per running campaign at a time (its unique key); each look is one short transaction.
  ctx.jobs.register<{ campaign_id: string }>(DISPATCH_JOB, (job) => dispatchCampaign(ctx, job), { concurrency: 4, maxAttempts: 1000 });
  ctx.jobs.register<{ schedule_id: string; run_at: number }>(RUN_JOB, (job) => runSchedule(ctx, job), { concurrency: 4, maxAttempts: 3 });
}
