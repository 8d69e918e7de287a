// What the in-process benches share to run on either database: `--database-url postgres://…` puts the
// bench's Parley on PostgreSQL (modes.ts passes a fresh database), and a `mode:` line says which ran,
// so a caller comparing modes can tell a bench that ignored the flag from one that honoured it.
import { statSync } from "node:fs";
import type { Parley } from "../../src/server.ts";

/** The config settings for `--database-url` (none: SQLite in the data dir). */
export function databaseSettings(args: Record<string, unknown>): { databaseUrl?: string } {
  return args["database-url"] ? { databaseUrl: String(args["database-url"]) } : {};
}

/** The database's size: SQLite's file and its WAL, or what PostgreSQL says the database takes. */
export function databaseMiB(ctx: Parley): number {
  if (ctx.dialect === "postgres") return Number((ctx.sqlite.prepare("SELECT pg_database_size(current_database()) AS bytes").get() as { bytes: number }).bytes) / 1024 / 1024;
  const size = (path: string) => {
    try {
      return statSync(path).size;
    } catch {
      return 0;
    }
  };
  return (size(ctx.dataDir.database) + size(`${ctx.dataDir.database}-wal`)) / 1024 / 1024;
}
