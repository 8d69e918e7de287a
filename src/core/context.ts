import { GroupCommit } from "./group-commit.ts";
import type { Config } from "../config/config.ts";
import { loadInstanceSecret, prepareDataDir, type DataDirLayout } from "../config/data-dir.ts";
import { openDatabase, openPostgresDatabase, type Db, type Dialect, type Sqlite } from "../db/connection.ts";
import { applyMigrations, applyPostgresMigrations, type MigrationResult } from "../db/migrate.ts";
import { MIGRATIONS, POSTGRES_MIGRATIONS } from "../db/migrations.ts";
import { deriveKey } from "../lib/crypto.ts";
import { randomBase62 } from "../lib/random.ts";
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
  /** The database connection (SQLite, or PostgreSQL behind the same interface: see db/postgres/). */
  sqlite: Sqlite;
  db: Db;
  /** Which database: the few places that differ ask (see db/connection.ts). */
  dialect: Dialect;
  /** Keys derived from the instance secret, one per purpose. */
  keys: { jwt: Uint8Array; encryption: Uint8Array; /** Signs requests between the nodes of a cluster. */ node: Uint8Array };
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
  /**
   * This process as a node of the cluster: new at every start, so a process that comes back resumes
   * nothing the others took over from its predecessor (the nodes table, README: Running a cluster).
   */
  nodeId: string;
}

export interface ContextOptions {
  config: Config;
  clock?: Clock;
  logger?: Logger;
}

/** Opens the data dir and database, applies migrations. Throws ConfigError / MigrationError with one-line reasons. */
export function createContext({ config, clock = systemClock, logger }: ContextOptions): AppContext {
  const log = logger ?? createLogger(config.logLevel as LogLevel);
  const dialect: Dialect = config.databaseUrl ? "postgres" : "sqlite";
  // A server that cannot be reached is refused before anything is created in the data dir.
  const postgres = dialect === "postgres" ? openPostgresDatabase(config.databaseUrl) : null;
  let dataDir: DataDirLayout;
  let secret: Uint8Array;
  try {
    dataDir = prepareDataDir(config.dataDir);
    secret = loadInstanceSecret(dataDir);
  } catch (error) {
    postgres?.sqlite.close();
    throw error;
  }
  const { sqlite, db } = postgres ?? openDatabase(dataDir.database, dataDir.cache);
  let migrations: MigrationResult;
  try {
    migrations = dialect === "postgres" ? applyPostgresMigrations(sqlite, POSTGRES_MIGRATIONS) : applyMigrations(sqlite, MIGRATIONS);
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
    dialect,
    keys: { jwt: deriveKey(secret, "jwt"), encryption: deriveKey(secret, "encryption"), node: deriveKey(secret, "node") },
    brand: { name: config.brandName, slug: config.brandSlug },
    writeBehind: new WriteBehind(sqlite, log, { metrics }),
    metrics,
    groupCommit: new GroupCommit(sqlite),
    jobs: NO_WORKER,
    migrations,
    publicUrl: config.publicUrl || `http://localhost:${config.port}`,
    startedAt: clock.now(),
    nodeId: `node_${randomBase62(16)}`,
  };
}

/** Flushes pending bookkeeping and closes the database (checkpointing the WAL). */
export function closeContext(ctx: AppContext): void {
  ctx.groupCommit.flush();
  ctx.writeBehind.close();
  try {
    if (ctx.dialect === "sqlite") ctx.sqlite.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    ctx.sqlite.close();
  }
}
