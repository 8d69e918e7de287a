// parley db copy --from DIR --to postgres://…: moves a SQLite instance's data into an empty PostgreSQL
// database (db/copy-to-postgres.ts does the copy). The data dir itself stays: it keeps the instance key,
// which opens the sealed secrets in the copied rows, and the recordings; the instance then serves with
// the same --data-dir and --database-url.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError } from "../config/config.ts";
import { dataDirLayout } from "../config/data-dir.ts";
import { lockDataDir } from "../config/serve-lock.ts";
import type { Sqlite } from "../db/connection.ts";
import { copyToPostgres } from "../db/copy-to-postgres.ts";
import { Database } from "../db/native.ts";
import { postgresClient } from "../db/postgres-client.ts";
import { parseDatabaseUrl } from "../db/postgres/url.ts";
import { indexCopiedChunks } from "../knowledge/postgres-store.ts";
import type { ParsedArgs } from "./args.ts";

const note = (line: string) => process.stderr.write(line + "\n");

// A copy of tens of thousands of rows per statement batch, and the final counts, may take longer than a request's 30 s.
const COPY_STATEMENT_TIMEOUT_MS = 600_000;

/** The URL checks of --database-url, said of --to. */
function asTo<T>(open: () => T): T {
  try {
    return open();
  } catch (error) {
    if (error instanceof ConfigError) throw new ConfigError(error.message.replace(/^--database-url/, "--to"));
    throw error;
  }
}

export function dbCopy(args: ParsedArgs): void {
  const from = args.flags.from;
  const to = args.flags.to;
  if (typeof from !== "string" || !from) throw new ConfigError("db copy needs --from DIR, the data dir of the SQLite instance to copy");
  if (typeof to !== "string" || !to) throw new ConfigError("db copy needs --to postgres://user:password@host:5432/database, an empty PostgreSQL database");
  asTo(() => parseDatabaseUrl(to));
  const layout = dataDirLayout(resolve(from));
  if (!existsSync(layout.database)) throw new ConfigError(`no Parley database in ${layout.root} (--from: a SQLite instance's data dir holds parley.db; restore a backup into one with parley restore)`);
  // Held for the whole copy: a serve started meanwhile would write what the copy no longer sees.
  const lock = lockDataDir(layout.root, (pid) => `Parley (pid ${pid}) is serving ${layout.root} (--from); stop it first (db copy reads the data at rest), or copy a backup of it`);
  try {
    const source = new Database(layout.database, { fileMustExist: true });
    try {
      source.pragma("query_only = ON");
      const { db: target } = asTo(() => postgresClient().openPostgres(to, { statementTimeoutMs: COPY_STATEMENT_TIMEOUT_MS }));
      try {
        // SQLite's FTS5 and vec0 tables are its own: PostgreSQL's search rows are made from the copied chunks, in the same transaction.
        let indexed = 0;
        const report = copyToPostgres(source, target, note, () => (indexed = indexCopiedChunks(target as unknown as Sqlite)));
        const rows = report.tables.reduce((sum, t) => sum + t.rows, 0);
        note(`db copy: knowledge search: words and vector codes of ${indexed} chunks indexed for PostgreSQL (SQLite's FTS5 and vec0 tables are not copied)`);
        if (!existsSync(layout.secretFile)) note(`db copy: ${layout.root} has no instance.key: stored provider and carrier credentials cannot be read without the key they were sealed with`);
        note(`db copy: recordings and other files stay in ${layout.root}, and so does instance.key, which opens the copied credentials`);
        process.stdout.write(`copied ${report.tables.length} tables, ${rows} rows into ${postgresClient().redactUrl(parseDatabaseUrl(to).url)} (row counts checked); start it with parley serve --data-dir ${layout.root} --database-url <the --to URL>\n`);
      } finally {
        target.close();
      }
    } finally {
      source.close();
    }
  } finally {
    lock.release();
  }
}
