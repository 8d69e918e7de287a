import type { AppContext } from "../core/context.ts";
import { DatabaseFileStore, fileConnections } from "./database-store.ts";
import { DirectoryFileStore } from "./directory-store.ts";
import type { FileStore } from "./store.ts";

const stores = new WeakMap<AppContext, FileStore>();

/**
 * This instance's file store: --files-dir when given; otherwise the data dir on SQLite (one node, as
 * always) and the database on PostgreSQL, which every node reads with nothing else to set up and
 * pg_dump backs up (README: "Recordings and files on every node").
 */
export function fileStore(ctx: AppContext): FileStore {
  let store = stores.get(ctx);
  if (!store) {
    if (ctx.config.filesDir) store = new DirectoryFileStore(ctx.config.filesDir, "files-dir");
    else if (ctx.dialect === "postgres") store = new DatabaseFileStore(fileConnections(ctx.config.databaseUrl), () => ctx.clock.now());
    else store = new DirectoryFileStore(ctx.dataDir.root, "data-dir");
    stores.set(ctx, store);
  }
  return store;
}

/** Closes the database store's connections, if this process opened them. */
export async function closeFileStore(ctx: AppContext): Promise<void> {
  const store = stores.get(ctx);
  stores.delete(ctx);
  if (store instanceof DatabaseFileStore) await store.close();
}
