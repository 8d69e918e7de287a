// The composition root: builds the context, installs the job runner, wires each feature to the
// services of the others, registers every job type, and starts (or stops) the server.
import { createApp } from "./app.ts";
import { ConfigError, publicBaseUrl } from "./config/config.ts";
import { closeContext, createContext, type ContextOptions } from "./core/context.ts";
import { withHttp, type HttpContext } from "./http/context.ts";
import { JobRunner } from "./jobs/runner.ts";
import { INDEX_JOB, indexSource } from "./knowledge/indexing.ts";
import { finalizeCall } from "./modules/calls/finalize.ts";
import { FINALIZE_JOB, registerCallEndHook } from "./modules/calls/lifecycle.ts";
import { PLACE_JOB } from "./modules/calls/service.ts";
import { DISPATCH_JOB, dispatchCampaign } from "./modules/campaigns/dispatcher.ts";
import { recordCampaignOutcome } from "./modules/campaigns/outcomes.ts";
import { runSchedule } from "./modules/schedules/runner.ts";
import { RUN_JOB } from "./modules/schedules/service.ts";
import { startSystemSweeps } from "./scheduler/system-sweeps.ts";
import { placeCall } from "./voice/runtime/connect.ts";
import { endLiveCallsAtShutdown } from "./voice/runtime/watchdog.ts";
import { deliverWebhook } from "./webhooks/delivery.ts";
import { DELIVER_JOB } from "./webhooks/outbox.ts";

/** Running jobs get this long to finish at shutdown; the rest are handed back to the queue. */
const JOB_SHUTDOWN_DEADLINE_MS = 10_000;

/** Bun's own cap; each route enforces its real limit (1 MiB JSON, larger uploads where declared). */
const MAX_REQUEST_BODY_BYTES = 32 * 1024 * 1024;

/** One Parley: the context every feature shares, with the job runner this process drives. */
export interface Parley extends HttpContext {
  jobs: JobRunner;
}

/** Opens the data dir and database (migrated), and wires every feature; nothing runs until startServer. */
export function createParley(options: ContextOptions): Parley {
  const ctx = withHttp(createContext(options));
  const parley = Object.assign(ctx, { jobs: new JobRunner(ctx, { leaseMs: ctx.config.jobLeaseSeconds * 1000 }) });
  registerJobHandlers(parley);
  return parley;
}

export function closeParley(parley: Parley): void {
  closeContext(parley);
}

/** Every job type the server runs. */
function registerJobHandlers(ctx: Parley): void {
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

export interface RunningServer {
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  stop(): Promise<void>;
}

export function startServer(ctx: Parley): RunningServer {
  const { app } = createApp(ctx);
  try {
    app.listen({ hostname: ctx.config.host, port: ctx.config.port, maxRequestBodySize: MAX_REQUEST_BODY_BYTES, development: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE") throw new ConfigError(`port ${ctx.config.port} is already in use on ${ctx.config.host}`);
    if (code === "EACCES") throw new ConfigError(`not allowed to listen on port ${ctx.config.port} (${code})`);
    if (code === "EADDRNOTAVAIL") throw new ConfigError(`cannot listen on ${ctx.config.host}: no such local address`);
    throw error;
  }
  const server = app.server!;
  const port = server.port!;
  ctx.publicUrl = publicBaseUrl(ctx.config, port);
  const sweeps = startSystemSweeps(ctx);
  ctx.jobs.start();
  return {
    port,
    url: `http://${ctx.config.host.includes(":") ? `[${ctx.config.host}]` : ctx.config.host === "0.0.0.0" ? "127.0.0.1" : ctx.config.host}:${port}`,
    async stop() {
      sweeps.stop();
      await server.stop(false);
      await ctx.jobs.stop(JOB_SHUTDOWN_DEADLINE_MS);
      const ended = await endLiveCallsAtShutdown(ctx, JOB_SHUTDOWN_DEADLINE_MS);
      if (ended) ctx.logger.info("live calls ended at shutdown", { calls: ended });
    },
  };
}
