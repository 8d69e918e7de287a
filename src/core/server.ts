import { createApp } from "../app.ts";
import { ConfigError, publicBaseUrl } from "../config/config.ts";
import { startSystemSweeps } from "../scheduler/system-sweeps.ts";
import { endLiveCallsAtShutdown } from "../voice/runtime/watchdog.ts";
import type { AppContext } from "./context.ts";

/** Running jobs get this long to finish at shutdown; the rest are handed back to the queue. */
const JOB_SHUTDOWN_DEADLINE_MS = 10_000;

/** Bun's own cap; each route enforces its real limit (1 MiB JSON, larger uploads where declared). */
const MAX_REQUEST_BODY_BYTES = 32 * 1024 * 1024;

export interface RunningServer {
  port: number;
  url: string;
  /** Stops accepting, lets in-flight requests finish, then resolves. */
  stop(): Promise<void>;
}

export function startServer(ctx: AppContext): RunningServer {
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
