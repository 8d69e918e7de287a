import { chmodSync, existsSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import type BetterSqlite3 from "better-sqlite3";
import * as schema from "./schema/index.ts";
import { Database, sqliteVecPath } from "./native.ts";
import { Lru } from "../lib/lru.ts";
import { postgresClient } from "./postgres-client.ts";

export type Sqlite = BetterSqlite3.Database;
export type Dialect = "sqlite" | "postgres";
export type Db = BetterSQLite3Database<typeof schema>;

/** Every pragma in one place. NORMAL is durable under WAL except for the last commits on power loss. */
const PRAGMAS = [
  "journal_mode = WAL",
  "synchronous = NORMAL",
  "foreign_keys = ON",
  "busy_timeout = 5000",
  "temp_store = MEMORY",
  "cache_size = -16000",
];

export function openDatabase(path: string, cacheDir: string): { sqlite: Sqlite; db: Db } {
  // Private like instance.key: SQLite gives the -wal and -shm files the database file's mode.
  if (!existsSync(path)) writeFileSync(path, "", { mode: 0o600 });
  else if ((statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
  const sqlite = new Database(path);
  for (const pragma of PRAGMAS) sqlite.pragma(pragma);
  sqlite.loadExtension(extractSqliteVec(cacheDir));
  immediateTransactions(sqlite);
  return { sqlite, db: drizzle(withStatementCache(sqlite), { schema }) };
}

/**
 * PostgreSQL behind the same synchronous interface (db/postgres/sync-client.ts implements the part of
 * better-sqlite3's the code uses), so drizzle's SQLite dialect and our statements run unchanged; the
 * statement text is translated once per distinct SQL (db/postgres/translate.ts).
 */
export function openPostgresDatabase(url: string): { sqlite: Sqlite; db: Db } {
  const { db: postgres } = postgresClient().openPostgres(url);
  const sqlite = postgres as unknown as Sqlite;
  const db = drizzle(withStatementCache(sqlite), { schema });
  POSTGRES_HANDLES.add(db);
  return { sqlite, db };
}

const POSTGRES_HANDLES = new WeakSet<Db>();

/** Which database a handle speaks to, for the few statements that must differ in substance (row locks). */
export function dialectOf(db: Db): Dialect {
  return POSTGRES_HANDLES.has(db) ? "postgres" : "sqlite";
}

/**
 * Every transaction begins IMMEDIATE, drizzle's included (it asks for "deferred"). Other connections
 * write too (the write-behind thread, CLI commands beside a live server), and a deferred transaction
 * that reads before it writes cannot take the write lock once another connection has committed in
 * between: SQLite answers "database is locked" at once, without waiting. Taking the lock at BEGIN waits
 * (busy_timeout) instead, and never fails that way.
 */
function immediateTransactions(sqlite: Sqlite): void {
  const transaction = sqlite.transaction.bind(sqlite);
  sqlite.transaction = ((fn: (...args: unknown[]) => unknown) => {
    const variants = transaction(fn);
    const immediate = variants.immediate;
    const run = function (this: unknown, ...args: unknown[]) {
      return immediate.apply(this, args);
    };
    const same = { value: run };
    Object.defineProperties(run, { default: same, deferred: same, immediate: same, exclusive: { value: variants.exclusive }, database: { value: sqlite } });
    return run;
  }) as Sqlite["transaction"];
}

const STATEMENT_CACHE_SIZE = 500;

/**
 * drizzle compiles a fresh SQLite statement for every query it runs (~20 µs each); the same SQL
 * text comes back on every request, so keep the compiled statements (LRU) and hand them out again.
 */
function withStatementCache(sqlite: Sqlite): Sqlite {
  const cache = new Lru<string, BetterSqlite3.Statement>(STATEMENT_CACHE_SIZE);
  const prepare = (source: string) => {
    const statement = cache.get(source, () => sqlite.prepare(source));
    // drizzle switches a statement to array rows when it wants them; start every use in object mode.
    return statement.reader ? statement.raw(false) : statement;
  };
  return new Proxy(sqlite, {
    get(target, property) {
      if (property === "prepare") return prepare;
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Inside the executable the extension lives in Bun's virtual filesystem, which dlopen cannot read:
 * copy it to a real file first (again whenever its size changes, so an upgrade replaces it).
 */
function extractSqliteVec(cacheDir: string): string {
  if (!sqliteVecPath.startsWith("/$bunfs/")) return sqliteVecPath;
  const target = join(cacheDir, "vec0.so"); // SQLite derives the init symbol from this name
  const bytes = readFileSync(sqliteVecPath);
  if (!existsSync(target) || statSync(target).size !== bytes.length) {
    const temp = `${target}.${process.pid}.tmp`;
    writeFileSync(temp, bytes, { mode: 0o755 });
    renameSync(temp, target);
  }
  return target;
}
