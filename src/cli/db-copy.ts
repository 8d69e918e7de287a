// parley db copy --from DIR --to postgres://…: moves a SQLite instance's data into an empty PostgreSQL
// database (db/copy-to-postgres.ts does the copy). The data dir itself stays: it keeps the instance key,
// which opens the sealed secrets in the copied rows (the recordings are copied into the database's file
// store); the instance then serves with the same --data-dir and --database-url.
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
import { copyFileIn } from "../files/database-store.ts";
import { indexCopiedChunks } from "../knowledge/postgres-store.ts";
import { recordingFile } from "../modules/calls/recording.ts";
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

/**
 * The calls' recordings (and MP3s made of them) from the data dir into the database's file store, in the
 * copy's transaction: PostgreSQL mode reads them there (files/database-store.ts).
 */
function copyRecordings(source: Sqlite, target: Sqlite, root: string): { files: number; bytes: number; missing: number } {
  const rows = source.prepare("SELECT workspace_id, recording_path FROM calls WHERE recording_path IS NOT NULL AND erased_at IS NULL ORDER BY id").all() as { workspace_id: string; recording_path: string }[];
  const copied = { files: 0, bytes: 0, missing: 0 };
  for (const row of rows) {
    const wav = recordingFile(root, row.recording_path);
    if (!wav || !existsSync(wav)) {
      copied.missing++;
      continue;
    }
    const mp3 = wav.replace(/\.wav$/, ".mp3");
    for (const [file, path, contentType] of [[wav, row.recording_path, "audio/wav"], [mp3, row.recording_path.replace(/\.wav$/, ".mp3"), "audio/mpeg"]]) {
      if (!existsSync(file)) continue;
      copied.bytes += copyFileIn(target, path, file, { workspaceId: row.workspace_id, contentType }, Date.now());
      copied.files++;
    }
  }
  return copied;
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
        let recordings = { files: 0, bytes: 0, missing: 0 };
        const report = copyToPostgres(source, target, note, () => {
          indexed = indexCopiedChunks(target as unknown as Sqlite);
          recordings = copyRecordings(source, target as unknown as Sqlite, layout.root);
        });
        const rows = report.tables.reduce((sum, t) => sum + t.rows, 0);
        note(`db copy: knowledge search: words and vector codes of ${indexed} chunks indexed for PostgreSQL (SQLite's FTS5 and vec0 tables are not copied)`);
        if (!existsSync(layout.secretFile)) note(`db copy: ${layout.root} has no instance.key: stored provider and carrier credentials cannot be read without the key they were sealed with`);
        note(`db copy: recordings: ${recordings.files} files (${(recordings.bytes / 1e6).toFixed(1)} MB) copied into the database in chunks (stored_files), where every node reads them${recordings.missing ? `; ${recordings.missing} named by calls were not in ${layout.root}` : ""}`);
        note(`db copy: instance.key stays in ${layout.root} and opens the copied credentials; the recordings there are no longer read (serving with --files-dir instead: copy ${layout.root}/recordings into it)`);
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
