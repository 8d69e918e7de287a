import type { Config } from "../config/config.ts";
import { loadInstanceSecret, prepareDataDir, type DataDirLayout } from "../config/data-dir.ts";
import { openDatabase, type Db, type Sqlite } from "../db/connection.ts";
import { applyMigrations, type MigrationResult } from "../db/migrate.ts";
import { MIGRATIONS } from "../db/migrations.ts";
import { RateLimiter } from "../http/rate-limit.ts";
import { JobRunner } from "../jobs/runner.ts";
import { AccessTokens } from "../modules/auth/tokens.ts";
import { deriveKey } from "../lib/crypto.ts";
import { systemClock, type Clock } from "./clock.ts";
import { createLogger, type Logger, type LogLevel } from "./logger.ts";
import { WriteBehind } from "./write-behind.ts";
import { registerJobHandlers } from "../jobs/handlers.ts";

/** Everything a request handler, job or command may use. Created once per process (or per test). */
export interface AppContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  dataDir: DataDirLayout;
  sqlite: Sqlite;
  db: Db;
  /** Keys derived from the instance secret, one per purpose. */
  keys: { jwt: Uint8Array; encryption: Uint8Array };
  tokens: AccessTokens;
  brand: { name: string; slug: string };
  rateLimiter: RateLimiter;
  writeBehind: WriteBehind;
  /** The durable job queue's worker; started by the server, not by one-shot commands. */
  jobs: JobRunner;
  migrations: MigrationResult;
  /** The base URL links and events use; known once the server listens. */
  publicUrl: string;
  startedAt: number;
}

export interface ContextOptions {
  config: Config;
  clock?: Clock;
  logger?: Logger;
}

/** Opens the data dir and database, applies migrations. Throws ConfigError / MigrationError with one-line reasons. */
export function createContext({ config, clock = systemClock, logger }: ContextOptions): AppContext {
  const log = logger ?? createLogger(config.logLevel as LogLevel);
  const dataDir = prepareDataDir(config.dataDir);
  const secret = loadInstanceSecret(dataDir);
  const { sqlite, db } = openDatabase(dataDir.database, dataDir.cache);
  let migrations: MigrationResult;
  try {
    migrations = applyMigrations(sqlite, MIGRATIONS);
  } catch (error) {
    sqlite.close();
    throw error;
  }
  if (migrations.applied.length) log.info("database migrated", { applied: migrations.applied.join(",") });
  const keys = { jwt: deriveKey(secret, "jwt"), encryption: deriveKey(secret, "encryption") };
  const ctx: AppContext = {
    config,
    clock,
    logger: log,
    dataDir,
    sqlite,
    db,
    keys,
    tokens: new AccessTokens(keys.jwt, clock, config.brandSlug),
    brand: { name: config.brandName, slug: config.brandSlug },
    rateLimiter: new RateLimiter(clock),
    writeBehind: new WriteBehind(sqlite, log),
    migrations,
    publicUrl: config.publicUrl || `http://localhost:${config.port}`,
    startedAt: clock.now(),
    jobs: undefined as unknown as JobRunner,
  };
  ctx.jobs = new JobRunner(ctx, { leaseMs: config.jobLeaseSeconds * 1000 });
  registerJobHandlers(ctx);
  return ctx;
}

/** Flushes pending bookkeeping and closes the database (checkpointing the WAL). */
export function closeContext(ctx: AppContext): void {
  ctx.writeBehind.flush();
  try {
    ctx.sqlite.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    ctx.sqlite.close();
  }
}

