// The synchronous PostgreSQL client keeps better-sqlite3's promises to the code above it: transactions
// all or nothing (savepoints when nested), values in SQLite's shapes, statements translated once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openPostgres } from "../../src/db/postgres/connect.ts";
import { PostgresError } from "../../src/db/postgres/errors.ts";
import type { SyncPostgres } from "../../src/db/postgres/sync-client.ts";
import { translate } from "../../src/db/postgres/translate.ts";
import { freshDatabase } from "../helpers/postgres.ts";

let db: SyncPostgres;
beforeAll(() => {
  db = openPostgres(freshDatabase()).db;
  db.exec("CREATE TABLE t (id bigint PRIMARY KEY, name text, data bytea, amount bigint)");
});
afterAll(() => db.close());

const count = () => (db.prepare("SELECT count(*) AS n FROM t").get() as { n: number }).n;

describe("transactions", () => {
  test("commit on return, roll back on throw", () => {
    db.transaction(() => db.prepare("INSERT INTO t (id) VALUES (?)").run(1))();
    expect(() =>
      db.transaction(() => {
        db.prepare("INSERT INTO t (id) VALUES (?)").run(2);
        throw new Error("changed my mind");
      })(),
    ).toThrow("changed my mind");
    expect(db.prepare("SELECT id FROM t ORDER BY id").all()).toEqual([{ id: 1 }]);
    expect(db.inTransaction).toBe(false);
  });

  test("a nested transaction is a savepoint: its failure leaves the outer one's writes", () => {
    db.transaction(() => {
      db.prepare("INSERT INTO t (id) VALUES (?)").run(10);
      expect(() => db.transaction(() => db.prepare("INSERT INTO t (id) VALUES (?)").run(10))()).toThrow(PostgresError); // duplicate key
      db.prepare("INSERT INTO t (id) VALUES (?)").run(11);
    })();
    expect((db.prepare("SELECT id FROM t WHERE id >= 10 ORDER BY id").all() as { id: number }[]).map((r) => r.id)).toEqual([10, 11]);
  });

  test("a constraint's failure carries its SQLSTATE and constraint", () => {
    try {
      db.prepare("INSERT INTO t (id) VALUES (?)").run(1);
      throw new Error("not refused");
    } catch (error) {
      expect(error).toBeInstanceOf(PostgresError);
      expect((error as PostgresError).code).toBe("23505");
    }
  });

  test("a transaction function may not return a promise", () => {
    expect(() => db.transaction(async () => {})()).toThrow("cannot return a promise");
    expect(db.inTransaction).toBe(false);
  });
});

describe("values come back as SQLite gives them", () => {
  test("bigint as number, booleans as 1/0, bytea as Buffer, NULL as null", () => {
    db.prepare("INSERT INTO t (id, name, data, amount) VALUES (?, ?, ?, ?)").run(100, "x", Buffer.from([1, 2, 3]), 9_007_199_254_740_991);
    const row = db.prepare("SELECT id, name, data, amount, id > 5 AS big, NULL AS nothing FROM t WHERE id = ?").get(100) as Record<string, unknown>;
    expect(row).toEqual({ id: 100, name: "x", data: Buffer.from([1, 2, 3]), amount: 9_007_199_254_740_991, big: 1, nothing: null });
    expect(Buffer.isBuffer(row.data)).toBe(true);
  });

  test("raw (arrays), pluck, run's changes, and values bound as one array", () => {
    const statement = db.prepare("SELECT id, name FROM t WHERE id = ?");
    expect(statement.raw().all(100)).toEqual([[100, "x"]]);
    expect(db.prepare("SELECT id FROM t WHERE id >= ? ORDER BY id").pluck().all([10])).toEqual([10, 11, 100]);
    expect(db.prepare("UPDATE t SET name = ? WHERE id >= ?").run("y", 10).changes).toBe(3);
    expect(count()).toBe(4);
  });
});

describe("SQLite's statements in PostgreSQL's words", () => {
  test.each([
    ["SELECT max(a, 0), max(b) FROM t WHERE c = ? AND d = 'it''s ?'", "SELECT greatest(a, 0), max(b) FROM t WHERE c = $1 AND d = 'it''s ?'"],
    ['SELECT "q?" FROM t WHERE x IN (?, ?) LIMIT ?', 'SELECT "q?" FROM t WHERE x IN ($1, $2) LIMIT $3'],
    ["SELECT -sum(amount), avg(x), ifnull(a, 1), instr(c, ?) FROM t", "SELECT -(sum(amount))::bigint, (avg(x))::float8, coalesce(a, 1), strpos(c, $1) FROM t"],
    ["SELECT json_extract(meta, '$.a.b'), cast(x AS INTEGER) FROM t", "SELECT jsonb_extract_path((meta)::jsonb, 'a', 'b'), cast(x as bigint) FROM t"],
    ["UPDATE j SET e = json_insert(e, '$[#]', json(?))", "UPDATE j SET e = ((e)::jsonb || jsonb_build_array(($1)::jsonb))::text"],
    ["SELECT strftime('%Y-%m-%d', at / 1000, 'unixepoch') FROM t -- a ? in a comment\nWHERE b = ?", "SELECT to_char(to_timestamp(at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD') FROM t -- a ? in a comment\nWHERE b = $1"],
  ])("%s", (sqlite, postgres) => expect(translate(sqlite)).toBe(postgres));

  test("a construct without a translation is refused, not passed on wrongly", () => {
    expect(() => translate("SELECT json_extract(m, '$[0]') FROM t")).toThrow("not translated");
    expect(() => translate("SELECT strftime('%H', t, 'unixepoch') FROM t")).toThrow("not translated");
  });

  test("translated statements run: greatest, sum as a number, the day of a time", () => {
    const row = db.prepare("SELECT max(min(?, 5), 2) AS clamp, sum(amount) AS total, strftime('%Y-%m-%d', ? / 1000, 'unixepoch') AS day FROM t WHERE id = 1").get(9, Date.UTC(2026, 10, 29, 23, 59)) as Record<string, unknown>;
    expect(row).toEqual({ clamp: 5, total: null, day: "2026-11-29" });
  });
});
