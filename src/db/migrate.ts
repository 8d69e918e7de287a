import { sha256Hex } from "../lib/crypto.ts";
import type { Sqlite } from "./connection.ts";
import type { EmbeddedMigration } from "./embedded-migrations.macro.ts";

/** Stops start-up and names the migration that broke. */
export class MigrationError extends Error {
  constructor(readonly tag: string, cause: unknown) {
    super(`migration ${tag} failed: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

export interface MigrationResult {
  applied: string[];
  total: number;
}

// Same bookkeeping table drizzle's own migrator uses, so drizzle-kit tooling sees our history.
const JOURNAL_TABLE = "__drizzle_migrations";

/** Applies every pending migration in ONE transaction: either all of them land or none. */
export function applyMigrations(sqlite: Sqlite, migrations: EmbeddedMigration[]): MigrationResult {
  sqlite.exec(`CREATE TABLE IF NOT EXISTS ${JOURNAL_TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, hash TEXT NOT NULL, created_at NUMERIC)`);
  const last = sqlite.prepare(`SELECT created_at AS createdAt FROM ${JOURNAL_TABLE} ORDER BY created_at DESC LIMIT 1`).get() as
    | { createdAt: number }
    | undefined;
  const newest = migrations.at(-1);
  if (last && newest && Number(last.createdAt) > newest.when) {
    throw new MigrationError("(database)", new Error("the database was migrated by a newer Parley; upgrade the executable"));
  }
  const pending = migrations.filter((m) => !last || m.when > Number(last.createdAt));
  const record = sqlite.prepare(`INSERT INTO ${JOURNAL_TABLE} (hash, created_at) VALUES (?, ?)`);
  const run = sqlite.transaction(() => {
    // drizzle-kit rebuilds tables for some ALTERs; foreign keys are checked at commit instead of mid-rebuild.
    sqlite.pragma("defer_foreign_keys = ON");
    for (const migration of pending) {
      try {
        for (const statement of migration.sql.split("--> statement-breakpoint")) {
          if (statement.trim()) sqlite.exec(statement);
        }
        record.run(sha256Hex(migration.sql), migration.when);
      } catch (error) {
        throw new MigrationError(migration.tag, error);
      }
    }
  });
  run.immediate();
  return { applied: pending.map((m) => m.tag), total: migrations.length };
}

// Any fixed number: every Parley process takes the same one, so only one migrates at a time.
const MIGRATION_LOCK = 4_761_520_326;

/**
 * PostgreSQL: the same journal, all pending migrations in ONE transaction (its DDL is transactional),
 * under an advisory lock held to the commit: a second process starting at the same moment waits, then
 * finds nothing pending.
 */
export function applyPostgresMigrations(db: Sqlite, migrations: EmbeddedMigration[]): MigrationResult {
  let applied: string[] = [];
  db.transaction(() => {
    db.prepare("SELECT pg_advisory_xact_lock(?)").get(MIGRATION_LOCK);
    // Only when missing: even IF NOT EXISTS needs the right to create, which a role that only uses the tables lacks.
    const exists = db.prepare(`SELECT to_regclass('public.${JOURNAL_TABLE}') IS NOT NULL AS "exists"`).get() as { exists: number };
    if (!exists.exists) db.exec(`CREATE TABLE ${JOURNAL_TABLE} (id serial PRIMARY KEY, hash text NOT NULL, created_at bigint)`);
    const last = db.prepare(`SELECT created_at AS "createdAt" FROM ${JOURNAL_TABLE} ORDER BY created_at DESC LIMIT 1`).get() as { createdAt: number } | undefined;
    const newest = migrations.at(-1);
    if (last && newest && Number(last.createdAt) > newest.when) {
      throw new MigrationError("(database)", new Error("the database was migrated by a newer Parley; upgrade the executable"));
    }
    const pending = migrations.filter((m) => !last || m.when > Number(last.createdAt));
    for (const migration of pending) {
      try {
        for (const statement of migration.sql.split("--> statement-breakpoint")) {
          if (statement.trim()) db.exec(statement);
        }
        db.prepare(`INSERT INTO ${JOURNAL_TABLE} (hash, created_at) VALUES (?, ?)`).run(sha256Hex(migration.sql), migration.when);
      } catch (error) {
        throw new MigrationError(migration.tag, error);
      }
    }
    applied = pending.map((m) => m.tag);
  })();
  return { applied, total: migrations.length };
}
