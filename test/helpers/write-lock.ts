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
