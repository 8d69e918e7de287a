// One shape for a database's schema, read from SQLite or PostgreSQL: the no-drift test compares the
// two, the PostgreSQL baseline was rendered from it, and `parley db copy` walks its tables.
import type { Sqlite } from "./connection.ts";

export interface ColumnModel {
  name: string;
  /** integer | text | blob | real | numeric (SQLite's affinities; PostgreSQL's types map onto them). */
  type: string;
  notNull: boolean;
  /** The default's SQL without casts, or null. */
  default: string | null;
}

export interface IndexModel {
  name: string;
  columns: string[];
  unique: boolean;
  partial: boolean;
}

export interface ForeignKeyModel {
  columns: string[];
  table: string;
  foreignColumns: string[];
  onDelete: string;
  onUpdate: string;
}

export interface TableModel {
  name: string;
  columns: ColumnModel[];
  primaryKey: string[];
  /** Serial: an integer primary key the database numbers (SQLite's AUTOINCREMENT). */
  autoIncrement: boolean;
  indexes: IndexModel[];
  foreignKeys: ForeignKeyModel[];
}

/** Bookkeeping and search-engine tables each dialect keeps its own way (see knowledge/). */
const SQLITE_ONLY = /^(sqlite_|__drizzle_migrations$|knowledge_vectors_|knowledge_chunks_fts)/;

function affinity(declared: string): string {
  const type = declared.toLowerCase();
  if (type.includes("int")) return "integer";
  if (type.includes("char") || type.includes("text") || type.includes("clob")) return "text";
  if (type.includes("blob") || type === "") return "blob";
  if (type.includes("real") || type.includes("floa") || type.includes("doub")) return "real";
  return "numeric";
}

const ACTION = (action: string) => action.toLowerCase().replace(/\s+/g, " ");

export function sqliteModel(db: Sqlite): TableModel[] {
  const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string; sql: string }[];
  return tables
    .filter((t) => !SQLITE_ONLY.test(t.name) && !/^CREATE VIRTUAL/i.test(t.sql))
    .map(({ name, sql }) => {
      const quoted = `"${name.replace(/"/g, '""')}"`;
      const info = db.prepare(`PRAGMA table_info(${quoted})`).all() as { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }[];
      const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
      const indexList = db.prepare(`PRAGMA index_list(${quoted})`).all() as { name: string; unique: number; origin: string; partial: number }[];
      const indexes = indexList
        .filter((i) => i.origin !== "pk")
        .map((i) => ({
          name: i.origin === "u" ? "(unique)" : i.name,
          columns: (db.prepare(`PRAGMA index_info("${i.name.replace(/"/g, '""')}")`).all() as { seqno: number; name: string | null }[])
            .sort((a, b) => a.seqno - b.seqno)
            .map((c) => c.name ?? "(expression)"),
          unique: i.unique === 1,
          partial: i.partial === 1,
        }));
      const fkRows = db.prepare(`PRAGMA foreign_key_list(${quoted})`).all() as { id: number; seq: number; table: string; from: string; to: string; on_update: string; on_delete: string }[];
      const foreignKeys = [...new Set(fkRows.map((r) => r.id))].map((id) => {
        const rows = fkRows.filter((r) => r.id === id).sort((a, b) => a.seq - b.seq);
        return { columns: rows.map((r) => r.from), table: rows[0].table, foreignColumns: rows.map((r) => r.to), onDelete: ACTION(rows[0].on_delete), onUpdate: ACTION(rows[0].on_update) };
      });
      return {
        name,
        columns: info.map((c) => ({ name: c.name, type: affinity(c.type), notNull: c.notnull === 1 || c.pk > 0, default: normalizeDefault(c.dflt_value) })),
        primaryKey,
        autoIncrement: /\bAUTOINCREMENT\b/i.test(sql),
        indexes: sortIndexes(indexes),
        foreignKeys: sortForeignKeys(foreignKeys),
      };
    });
}

/** The same model from PostgreSQL's catalog (schema `public`). */
export function postgresModel(db: Sqlite): TableModel[] {
  const tables = (db.prepare("SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename").all() as { name: string }[]).filter((t) => !SQLITE_ONLY.test(t.name) && !t.name.startsWith("knowledge_pg_"));
  return tables.map(({ name }) => {
    const columns = db
      .prepare("SELECT column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS dflt FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ? ORDER BY ordinal_position")
      .all(name) as { name: string; type: string; nullable: string; dflt: string | null }[];
    const pk = db
      .prepare("SELECT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass AND i.indisprimary ORDER BY array_position(i.indkey::int2[], a.attnum)")
      .all(`"${name}"`) as { name: string }[];
    const indexRows = db
      .prepare(
        `SELECT c.relname AS name, i.indisunique AS uniq, i.indpred IS NOT NULL AS partial, EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype = 'u') AS constraint_backed,
           (SELECT string_agg(coalesce(a.attname, '(expression)'), ',' ORDER BY k.ord) FROM unnest(i.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord) LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum) AS cols
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid WHERE i.indrelid = ?::regclass AND NOT i.indisprimary`,
      )
      .all(`"${name}"`) as { name: string; uniq: number; partial: number; constraint_backed: number; cols: string }[];
    const fkRows = db
      .prepare(
        `SELECT k.conname AS name, f.relname AS table, k.confdeltype AS del, k.confupdtype AS upd,
           (SELECT string_agg(a.attname, ',' ORDER BY x.ord) FROM unnest(k.conkey) WITH ORDINALITY AS x(attnum, ord) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.attnum) AS cols,
           (SELECT string_agg(a.attname, ',' ORDER BY x.ord) FROM unnest(k.confkey) WITH ORDINALITY AS x(attnum, ord) JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.attnum) AS fcols
         FROM pg_constraint k JOIN pg_class f ON f.oid = k.confrelid WHERE k.conrelid = ?::regclass AND k.contype = 'f'`,
      )
      .all(`"${name}"`) as { table: string; del: string; upd: string; cols: string; fcols: string }[];
    const action = (code: string) => ({ a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" })[code] ?? code;
    const serial = columns.some((c) => c.dflt?.startsWith("nextval("));
    return {
      name,
      columns: columns.map((c) => ({ name: c.name, type: postgresAffinity(c.type), notNull: c.nullable === "NO", default: c.dflt?.startsWith("nextval(") ? null : normalizeDefault(c.dflt) })),
      primaryKey: pk.map((p) => p.name),
      autoIncrement: serial,
      indexes: sortIndexes(indexRows.map((i) => ({ name: i.constraint_backed ? "(unique)" : i.name, columns: i.cols.split(","), unique: Boolean(i.uniq), partial: Boolean(i.partial) }))),
      foreignKeys: sortForeignKeys(fkRows.map((f) => ({ columns: f.cols.split(","), table: f.table, foreignColumns: f.fcols.split(","), onDelete: action(f.del), onUpdate: action(f.upd) }))),
    };
  });
}

function postgresAffinity(type: string): string {
  return ({ bigint: "integer", integer: "integer", smallint: "integer", text: "text", bytea: "blob", "double precision": "real", numeric: "numeric" } as Record<string, string>)[type] ?? type;
}

/** `'x'::text` → `'x'`; `(0)` → `0`. */
function normalizeDefault(value: string | null): string | null {
  if (value === null) return null;
  let v = value.trim().replace(/::[a-z ]+(\[\])?$/i, "");
  while (/^\(.*\)$/.test(v)) v = v.slice(1, -1).trim();
  return v === "false" ? "0" : v === "true" ? "1" : v; // SQLite keeps booleans as integers
}

function sortIndexes(indexes: IndexModel[]): IndexModel[] {
  return indexes.sort((a, b) => (a.name + a.columns.join()).localeCompare(b.name + b.columns.join()));
}

function sortForeignKeys(keys: ForeignKeyModel[]): ForeignKeyModel[] {
  return keys.sort((a, b) => (a.columns.join() + a.table).localeCompare(b.columns.join() + b.table));
}
