import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type Sqlite } from "../../src/db/connection.ts";
import { Database } from "../../src/db/native.ts";
import { sql } from "drizzle-orm";

let dir: string;
let main: ReturnType<typeof openDatabase>;
let other: Sqlite;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "parley-transactions-"));
  main = openDatabase(join(dir, "parley.db"), dir);
  main.sqlite.exec("CREATE TABLE t (n INTEGER)");
  other = new Database(join(dir, "parley.db"));
  other.pragma("busy_timeout = 0"); // answer at once: the test runs both connections on one thread
});

afterEach(() => {
  other.close();
  main.sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

const count = () => (main.sqlite.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;

// A deferred transaction that read first would fail its write with "database is locked" after the other
// connection's commit; holding the write lock from BEGIN makes the other connection wait instead.
test("the server connection's transactions hold the write lock from their first statement", () => {
  main.sqlite.transaction(() => {
    count();
    expect(() => other.prepare("INSERT INTO t VALUES (1)").run()).toThrow(/locked|busy/i);
    main.sqlite.prepare("INSERT INTO t VALUES (2)").run();
  })();
  expect(count()).toBe(1);
});

test("drizzle's transactions (which ask for deferred) do too", () => {
  main.db.transaction((tx) => {
    tx.all(sql`SELECT count(*) FROM t`);
    expect(() => other.prepare("INSERT INTO t VALUES (1)").run()).toThrow(/locked|busy/i);
    tx.run(sql`INSERT INTO t VALUES (2)`);
  });
  expect(count()).toBe(1);
});

test("nested transactions still become savepoints, and a failing one rolls back only itself", () => {
  const insert = (n: number) => main.sqlite.prepare("INSERT INTO t VALUES (?)").run(n);
  main.sqlite.transaction(() => {
    insert(1);
    expect(() =>
      main.sqlite.transaction(() => {
        insert(2);
        throw new Error("inner");
      })(),
    ).toThrow("inner");
    insert(3);
  })();
  expect((main.sqlite.prepare("SELECT n FROM t ORDER BY n").all() as { n: number }[]).map((row) => row.n)).toEqual([1, 3]);
});
