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
