import { test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { closeParley, createParley, type Parley, startServer } from "../../src/server.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildConfig, type RawSettings } from "../../src/config/config.ts";
import { ManualClock } from "../../src/core/clock.ts";
import { createLogger, type Logger } from "../../src/core/logger.ts";
import { ApiClient } from "./client.ts";
import { freshDatabase } from "./postgres.ts";

export interface TestServer {
  url: string;
  /** The metrics listener's URL (settings.metricsListen), or null. */
  metricsUrl: string | null;
  ctx: Parley;
  clock: ManualClock;
  /** Every line the server logged (password-reset links end up here). */
  logs: string[];
  api: ApiClient;
  stop(): Promise<void>;
}

/** Whether this run is against PostgreSQL (PARLEY_TEST_DATABASE=postgres). */
export const ON_POSTGRES = process.env.PARLEY_TEST_DATABASE === "postgres";

/**
 * A test about SQLite itself (its write lock, its files on disk): skipped on a PostgreSQL run, where a
 * test of PostgreSQL's own counterpart (test/postgres/) stands in for it.
 */
export const sqliteOnly = ON_POSTGRES ? test.skip : test;

/**
 * PARLEY_TEST_DATABASE=postgres runs a test file against PostgreSQL: each context or server gets a fresh
 * database on the test process's real server (helpers/postgres.ts); otherwise SQLite in the data dir.
 */
export function testDatabase(settings: RawSettings = {}): RawSettings {
  if (!ON_POSTGRES || settings.databaseUrl !== undefined) return {};
  // A data dir the test names is an instance it restarts: the same data dir, the same database.
  if (settings.dataDir === undefined) return { databaseUrl: freshDatabase() };
  const dataDir = String(settings.dataDir);
  let url = databaseOfDataDir.get(dataDir);
  if (!url) databaseOfDataDir.set(dataDir, (url = freshDatabase()));
  return { databaseUrl: url };
}

const databaseOfDataDir = new Map<string, string>();

/** A context on a temporary data dir without a server or running job runner (for queue-level tests). */
export function createTestContext(settings: RawSettings = {}, startAt = Date.now()) {
  const dataDir = mkdtempSync(join(tmpdir(), "parley-ctx-"));
  const config = buildConfig({ host: "127.0.0.1", port: "0", dataDir, allowPrivateUrls: "true", ...testDatabase(settings), ...settings });
  config.checkResponses = true;
  const clock = new ManualClock(startAt);
  const logs: string[] = [];
  const ctx = createParley({ config, clock, logger: createLogger("info", (line) => logs.push(line)) });
  return {
    ctx,
    clock,
    logs,
    close() {
      closeParley(ctx);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface TestServerOptions {
  settings?: RawSettings;
  /** Outgoing webhook time-out (the real 10 s makes time-out tests slow). */
  webhookTimeoutMs?: number;
  /** Start the fake clock here (epoch ms); default: now. */
  startAt?: number;
  /** A clock of the test's own (default: a ManualClock standing still at `startAt`). */
  clock?: ManualClock;
  /** A data dir of the test's own, kept at stop() (default: a temporary one, removed). */
  dataDir?: string;
}

/**
 * A real server on an ephemeral loopback port with a temporary data dir and a fake clock.
 * Rate limits default high so that only the tests about them meet them.
 */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), "parley-test-"));
  const config = buildConfig({
    host: "127.0.0.1",
    port: "0",
    dataDir,
    allowPrivateUrls: "true",
    logLevel: "info",
    rateLimitPerMinute: "100000",
    publicRateLimitPerMinute: "100000",
    ...testDatabase(options.settings),
    ...options.settings,
  });
  const clock = options.clock ?? new ManualClock(options.startAt ?? Date.now());
  const logs: string[] = [];
  const logger: Logger = createLogger("info", (line) => logs.push(line));
  if (options.webhookTimeoutMs) config.webhookTimeoutMs = options.webhookTimeoutMs;
  // Every response the suite sees is checked against its documented schema (off in production).
  config.checkResponses = true;
  const ctx = createParley({ config, clock, logger });
  const server = startServer(ctx);
  return {
    url: server.url,
    metricsUrl: server.metricsUrl,
    ctx,
    clock,
    logs,
    api: new ApiClient(server.url),
    async stop() {
      await server.stop();
      closeParley(ctx);
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Real time that a test can jump forward: access tokens expire and rate windows close without waiting. */
export class ShiftedClock extends ManualClock {
  private offset = 0;
  override now(): number {
    return Date.now() + this.offset;
  }
  override advance(ms: number): void {
    this.offset += Math.round(ms); // whole milliseconds, as the server stores them (cursors carry them)
  }
  override set(ms: number): void {
    this.offset = ms - Date.now();
  }
}
