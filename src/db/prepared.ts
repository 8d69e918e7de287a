import type { Db } from "./connection.ts";

/**
 * A query prepared once per database and reused: hot paths (every request resolves a credential)
 * must not pay for building SQL text and compiling a statement each time.
 */
export function prepared<T>(build: (db: Db) => T): (db: Db) => T {
  const cache = new WeakMap<Db, T>();
  return (db) => {
    let statement = cache.get(db);
    if (!statement) {
      statement = build(db);
      cache.set(db, statement);
    }
    return statement;
  };
}
