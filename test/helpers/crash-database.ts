// The database a crash test's server processes use, and the test's own look at it once they are down:
// the SQLite file in the data dir, or on a PostgreSQL run (PARLEY_TEST_DATABASE=postgres) a fresh
// database on the test server, read through the same synchronous client the server uses.
import { join } from "node:path";
import type { Sqlite } from "../../src/db/connection.ts";
import { Database } from "../../src/db/native.ts";
import { openPostgres } from "../../src/db/postgres/connect.ts";
import { freshDatabase } from "./postgres.ts";
import { ON_POSTGRES } from "./server.ts";

export interface CrashDatabase {
  /** Arguments for every `parley` command of the test. */
  args: string[];
  /** A connection for reading (close it after); SQLite-flavoured SQL works on both. */
  open(): Sqlite;
  /** SQLite's integrity check; PostgreSQL keeps its own files whole ("ok"). */
  integrity(db: Sqlite): unknown;
}

export function crashTestDatabase(dataDir: string): CrashDatabase {
  if (!ON_POSTGRES) {
    return { args: [], open: () => new Database(join(dataDir, "parley.db"), { readonly: true }), integrity: (db) => db.pragma("integrity_check", { simple: true }) };
  }
  const url = freshDatabase();
  return { args: ["--database-url", url], open: () => openPostgres(url).db as unknown as Sqlite, integrity: () => "ok" };
}
