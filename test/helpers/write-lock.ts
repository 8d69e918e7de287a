import { SQL } from "bun";
import { Database } from "../../src/db/native.ts";
import type { Parley } from "../../src/server.ts";

/**
 * Another connection takes the database's write lock and holds it (a CLI command, a stuck writer)
 * until release(); the server's own connection waits only `busyTimeoutMs` for it (the real 5 s would
 * only make the tests slow), so its writes are refused meanwhile.
 */
export function holdWriteLock(ctx: Pick<Parley, "sqlite" | "dataDir">, busyTimeoutMs = 50): { release(): void } {
  ctx.sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  return lockDatabase(ctx.dataDir.database);
}

/** Another connection takes the write lock of the database at `path` and holds it until release(). */
export function lockDatabase(path: string): { release(): void } {
  const other = new Database(path);
  other.exec("BEGIN IMMEDIATE");
  return {
    release() {
      other.exec("ROLLBACK");
      other.close();
    },
  };
}

/**
 * What holds a write of the server's up, in either database: on SQLite the write lock (holdWriteLock);
 * on PostgreSQL, which has none, another connection's lock on the row the write needs (`SELECT … FOR
 * UPDATE`), waited for `busyTimeoutMs` (lock_timeout). The message the refusal logs matches `refusal`.
 */
export async function holdRowOrWriteLock(ctx: Pick<Parley, "sqlite" | "dataDir" | "config">, table: string, key: { column: string; value: string }, busyTimeoutMs = 50): Promise<{ release(): Promise<void>; refusal: RegExp }> {
  if (!ctx.config.databaseUrl) {
    const lock = holdWriteLock(ctx, busyTimeoutMs);
    return { release: async () => lock.release(), refusal: /database is locked/ };
  }
  ctx.sqlite.pragma(`busy_timeout = ${busyTimeoutMs}`);
  const other = new SQL(ctx.config.databaseUrl);
  const held = await other.reserve();
  await held.unsafe("BEGIN");
  await held.unsafe(`SELECT 1 FROM ${table} WHERE ${key.column} = $1 FOR UPDATE`, [key.value]);
  return {
    async release() {
      await held.unsafe("ROLLBACK");
      held.release();
      await other.close();
    },
    refusal: /lock timeout/,
  };
}
