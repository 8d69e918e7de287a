import { SQL } from "bun";
import type { Parley } from "../../src/server.ts";

/**
 * PostgreSQL's counterpart of helpers/write-lock.ts: another connection locks `table` against writes
 * (SHARE: reads go on, as beside SQLite's write lock) and holds it until release(); the server's own
 * connection waits only `lockTimeoutMs` for a lock (a stuck writer would otherwise hold it up until
 * the statement timeout), so its writes to the table are refused meanwhile.
 */
export async function holdTableLock(ctx: Pick<Parley, "sqlite" | "config">, table: string, lockTimeoutMs = 50): Promise<{ release(): Promise<void> }> {
  ctx.sqlite.exec(`SET lock_timeout = ${Math.floor(lockTimeoutMs)}`);
  const other = new SQL(ctx.config.databaseUrl);
  const held = await other.reserve();
  await held.unsafe("BEGIN");
  await held.unsafe(`LOCK TABLE "${table}" IN SHARE MODE`);
  return {
    async release() {
      await held.unsafe("ROLLBACK");
      held.release();
      await other.close();
      ctx.sqlite.exec("SET lock_timeout = 0");
    },
  };
}
