// `parley db copy`: a SQLite instance's rows into an empty PostgreSQL database, in ONE transaction on
// the target (its migrations included), so a failure anywhere leaves it as it was. Tables go in an
// order their foreign keys accept (PostgreSQL's are not deferrable), ids as they are; serial keys'
// sequences are moved past the copied ids, and every table's rows are counted on both sides at the end.
import { ConfigError } from "../config/errors.ts";
import type { Sqlite } from "./connection.ts";
import { postgresModel, sqliteModel, type TableModel } from "./introspect.ts";
import { applyPostgresMigrations } from "./migrate.ts";
import { MIGRATIONS, POSTGRES_MIGRATIONS } from "./migrations.ts";
import type { SyncPostgres } from "./postgres/sync-client.ts";

export interface CopyReport {
  /** Rows copied per table, in the order copied. */
  tables: { name: string; rows: number }[];
}

const q = (name: string) => `"${name.replace(/"/g, '""')}"`;
// PostgreSQL takes at most 65535 parameters in one statement; batches stay well under it.
const MAX_PARAMS = 30_000;
const MAX_BATCH_ROWS = 500;
const PROGRESS_EVERY = 20_000;

/** Tables ordered so that each comes after every table its foreign keys name (its own name aside). */
export function foreignKeyOrder(tables: TableModel[]): TableModel[] {
  const byName = new Map(tables.map((t) => [t.name, t]));
  const placed = new Set<string>();
  const ordered: TableModel[] = [];
  const visit = (table: TableModel, path: string[]) => {
    if (placed.has(table.name)) return;
    if (path.includes(table.name)) throw new ConfigError(`tables ${[...path, table.name].join(" → ")} reference each other in a cycle; db copy cannot order them`);
    for (const fk of table.foreignKeys) {
      const parent = byName.get(fk.table);
      if (parent && parent.name !== table.name) visit(parent, [...path, table.name]);
    }
    placed.add(table.name);
    ordered.push(table);
  };
  for (const table of tables) visit(table, []);
  return ordered;
}

/** Whether any table in the target's schema public holds a row (Parley's journal aside); the first such table. */
function firstTableWithRows(target: SyncPostgres): string | null {
  const tables = (target.prepare("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '__drizzle_migrations' ORDER BY tablename").all() as { name: string }[]).map((t) => t.name);
  for (const name of tables) {
    if (target.prepare(`SELECT 1 AS found FROM ${q(name)} LIMIT 1`).get()) return name;
  }
  return null;
}

/** The source must be at this Parley's last SQLite migration: the target gets this Parley's schema. */
function assertSourceCurrent(source: Sqlite): void {
  const journal = source.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = '__drizzle_migrations'").get();
  if (!journal) throw new ConfigError("the --from database is not a Parley database (no migration journal)");
  const last = (source.prepare("SELECT max(created_at) AS at FROM __drizzle_migrations").get() as { at: number | null }).at;
  const newest = MIGRATIONS.at(-1)!.when;
  if (last === null || Number(last) < newest) throw new ConfigError("the --from database was last migrated by an older Parley: run parley migrate --data-dir <the --from dir> first, then copy");
  if (Number(last) > newest) throw new ConfigError("the --from database was migrated by a newer Parley; copy it with that version");
}

/** Each SQLite table must exist in the migrated target with the same columns (the drift test keeps it so). */
function assertSameColumns(tables: TableModel[], target: SyncPostgres): void {
  const targetTables = new Map(postgresModel(target as unknown as Sqlite).map((t) => [t.name, new Set(t.columns.map((c) => c.name))]));
  for (const table of tables) {
    const columns = targetTables.get(table.name);
    if (!columns) throw new ConfigError(`PostgreSQL's schema has no table ${table.name}; this Parley's two schemas differ`);
    const missing = table.columns.find((c) => !columns.has(c.name));
    if (missing) throw new ConfigError(`PostgreSQL's table ${table.name} has no column ${missing.name}; this Parley's two schemas differ`);
  }
}

/**
 * Rows of a table that references itself, parents first: a row waits until the row its key names has
 * gone before it (rows naming no row, or a missing one, go at once; the constraint then judges them).
 */
export function parentsFirst(table: TableModel, columns: string[], rows: unknown[][]): unknown[][] {
  const selfKeys = table.foreignKeys.filter((fk) => fk.table === table.name);
  if (!selfKeys.length) return rows;
  const at = (names: string[]) => names.map((name) => columns.indexOf(name));
  const keyOf = (row: unknown[], indexes: number[]) => JSON.stringify(indexes.map((i) => row[i]));
  const present = new Map(selfKeys.map((fk) => [fk, new Set(rows.map((row) => keyOf(row, at(fk.foreignColumns))))]));
  const placed = new Map(selfKeys.map((fk) => [fk, new Set<string>()]));
  const ordered: unknown[][] = [];
  let waiting = rows;
  while (waiting.length) {
    const next: unknown[][] = [];
    for (const row of waiting) {
      const ready = selfKeys.every((fk) => {
        const ref = at(fk.columns).map((i) => row[i]);
        const key = JSON.stringify(ref);
        return ref.some((v) => v === null) || !present.get(fk)!.has(key) || placed.get(fk)!.has(key);
      });
      if (!ready) next.push(row);
      else {
        ordered.push(row);
        for (const fk of selfKeys) placed.get(fk)!.add(keyOf(row, at(fk.foreignColumns)));
      }
    }
    if (next.length === waiting.length) throw new ConfigError(`rows of ${table.name} reference each other in a cycle; db copy cannot order them`);
    waiting = next;
  }
  return ordered;
}

function copyTable(source: Sqlite, target: SyncPostgres, table: TableModel, progress: (line: string) => void): number {
  const columns = table.columns.map((c) => c.name);
  const total = (source.prepare(`SELECT count(*) AS n FROM ${q(table.name)}`).get() as { n: number }).n;
  // Primary-key order keeps the copy deterministic; a table without one goes in SQLite's rowid order.
  const order = table.primaryKey.length ? table.primaryKey.map(q).join(", ") : "rowid";
  const select = source.prepare(`SELECT ${columns.map(q).join(", ")} FROM ${q(table.name)} ORDER BY ${order}`).raw(true);
  const rows: Iterable<unknown[]> = table.foreignKeys.some((fk) => fk.table === table.name) ? parentsFirst(table, columns, select.all() as unknown[][]) : (select.iterate() as IterableIterator<unknown[]>);
  const perBatch = Math.max(1, Math.min(MAX_BATCH_ROWS, Math.floor(MAX_PARAMS / columns.length)));
  const head = `INSERT INTO ${q(table.name)} (${columns.map(q).join(", ")}) VALUES `;
  const insertText = (count: number) => head + Array.from({ length: count }, (_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(", ")})`).join(", ");
  const fullBatch = insertText(perBatch);
  let batch: unknown[] = [];
  let copied = 0;
  let reported = 0;
  const flush = () => {
    const count = batch.length / columns.length;
    if (!count) return;
    target.query(count === perBatch ? fullBatch : insertText(count), batch, "count");
    copied += count;
    batch = [];
    if (copied - reported >= PROGRESS_EVERY && copied < total) {
      reported = copied;
      progress(`db copy: ${table.name}: ${copied} of ${total} rows`);
    }
  };
  try {
    for (const row of rows) {
      batch.push(...row);
      if (batch.length === perBatch * columns.length) flush();
    }
    flush();
  } catch (error) {
    throw new ConfigError(`copying table ${table.name} failed: ${(error as Error).message}`);
  }
  return copied;
}

/** Moves each serial key's sequence past the copied ids, and past any SQLite had handed out before (AUTOINCREMENT never reuses one). */
function advanceSequences(source: Sqlite, target: SyncPostgres, tables: TableModel[]): void {
  const hasSequenceTable = source.prepare("SELECT 1 AS found FROM sqlite_master WHERE name = 'sqlite_sequence'").get();
  for (const table of tables.filter((t) => t.autoIncrement && t.primaryKey.length === 1)) {
    const column = table.primaryKey[0];
    const copiedMax = (source.prepare(`SELECT max(${q(column)}) AS n FROM ${q(table.name)}`).get() as { n: number | null }).n ?? 0;
    const handedOut = hasSequenceTable ? ((source.prepare("SELECT seq AS n FROM sqlite_sequence WHERE name = ?").get(table.name) as { n: number } | undefined)?.n ?? 0) : 0;
    const last = Math.max(copiedMax, handedOut);
    const { sequence } = target.query("SELECT pg_get_serial_sequence($1, $2) AS sequence", [q(table.name), column], "objects").rows![0] as { sequence: string | null };
    if (!sequence) throw new ConfigError(`PostgreSQL's table ${table.name} has no sequence for ${column}`);
    // is_called false with 1: the next id is 1, as in a table that never had a row.
    target.query("SELECT setval($1, $2, $3)", [sequence, Math.max(last, 1), last > 0], "count");
  }
}

/**
 * Copies every table of `source` (a Parley SQLite database at this version's schema) into `target`,
 * which must hold no rows; all or nothing. Throws ConfigError naming what is wrong.
 */
export function copyToPostgres(source: Sqlite, target: SyncPostgres, progress: (line: string) => void): CopyReport {
  assertSourceCurrent(source);
  const tables = foreignKeyOrder(sqliteModel(source));
  const report: CopyReport = { tables: [] };
  // One read snapshot of the source, whatever else opens it meanwhile.
  source.exec("BEGIN");
  try {
    target.transaction(() => {
      const busy = firstTableWithRows(target);
      if (busy) throw new ConfigError(`the --to database is not empty (table ${busy} has rows): copy into a new, empty database`);
      applyPostgresMigrations(target as unknown as Sqlite, POSTGRES_MIGRATIONS);
      assertSameColumns(tables, target);
      for (const table of tables) {
        const rows = copyTable(source, target, table, progress);
        report.tables.push({ name: table.name, rows });
        progress(`db copy: ${table.name}: ${rows} row${rows === 1 ? "" : "s"}`);
      }
      advanceSequences(source, target, tables);
      // Counted on both sides before the commit: a difference rolls everything back.
      const differing = tables.filter((table) => {
        const count = (sql: Sqlite | SyncPostgres) => Number((sql.prepare(`SELECT count(*) AS n FROM ${q(table.name)}`).get() as { n: number }).n);
        return count(source) !== count(target);
      });
      if (differing.length) throw new ConfigError(`row counts differ after the copy in ${differing.map((t) => t.name).join(", ")}; nothing was kept`);
    })();
  } finally {
    source.exec("COMMIT");
  }
  return report;
}
