import { GroupCommit } from "./group-commit.ts";
import type { Config } from "../config/config.ts";
import { loadInstanceSecret, prepareDataDir, type DataDirLayout } from "../config/data-dir.ts";
import { openDatabase, type Db, type Sqlite } from "../db/connection.ts";
import { applyMigrations, type MigrationResult } from "../db/migrate.ts";
import { MIGRATIONS } from "../db/migrations.ts";
import { deriveKey } from "../lib/crypto.ts";
import { systemClock, type Clock } from "./clock.ts";
import { createLogger, type Logger, type LogLevel } from "./logger.ts";
import { MetricsRegistry } from "./metrics.ts";
import { WriteBehind } from "./write-behind.ts";

/** What the rest of the process needs of the job queue's worker: a nudge after an enqueue, and whether it runs. */
export interface JobQueue {
  wake(type?: string): void;
  readonly isRunning: boolean;
}

/** A process without a worker (one-shot commands): enqueued jobs wait in the table for the server. */
const NO_WORKER: JobQueue = { wake() {}, isRunning: false };

/**
 * The ground floor every feature stands on: configuration, clock, logger, the database and the
 * instance keys. It names no feature; the composition root (src/server.ts) adds the rest.
 */
export interface AppContext {
  config: Config;
  clock: Clock;
  logger: Logger;
  dataDir: DataDirLayout;
  sqlite: Sqlite;
  db: Db;
  /** Keys derived from the instance secret, one per purpose. */
  keys: { jwt: Uint8Array; encryption: Uint8Array };
  brand: { name: string; slug: string };
  writeBehind: WriteBehind;
  /** What an operator's Prometheus scrapes (the metrics listener serves it); features record into it. */
  metrics: MetricsRegistry;
  /** Durable writes that share a commit with others queued in the same turn (see GroupCommit). */
  groupCommit: GroupCommit;
  /** The durable job queue's worker; the composition root installs it, one-shot commands run without. */
  jobs: JobQueue;
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
  const metrics = new MetricsRegistry();
  return {
    config,
    clock,
    logger: log,
    dataDir,
    sqlite,
    db,
    keys: { jwt: deriveKey(secret, "jwt"), encryption: deriveKey(secret, "encryption") },
    brand: { name: config.brandName, slug: config.brandSlug },
    writeBehind: new WriteBehind(sqlite, log, { metrics }),
    metrics,
    groupCommit: new GroupCommit(sqlite),
    jobs: NO_WORKER,
    migrations,
    publicUrl: config.publicUrl || `http://localhost:${config.port}`,
    startedAt: clock.now(),
  };
}

/** Flushes pending bookkeeping and closes the database (checkpointing the WAL). */
export function closeContext(ctx: AppContext): void {
  ctx.groupCommit.flush();
  ctx.writeBehind.close();
  try {
    ctx.sqlite.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    ctx.sqlite.close();
  }
}
