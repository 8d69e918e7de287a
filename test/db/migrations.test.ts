import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "../../src/db/connection.ts";
import { applyMigrations, MigrationError } from "../../src/db/migrate.ts";
import { MIGRATIONS } from "../../src/db/migrations.ts";
import { journalProblems, readMigrationSet } from "../../scripts/check-migrations.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const tempDir = tempDirs("parley-migrate-");

function freshDb() {
  const dir = tempDir();
  return openDatabase(join(dir, "test.db"), dir).sqlite;
}

const tables = (sqlite: ReturnType<typeof freshDb>) =>
  (sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((r) => r.name);

describe("embedded migrations", () => {
  test("the migrations folder is embedded in journal order", () => {
    const folder = readMigrationSet(join(import.meta.dir, "..", "..", "migrations"));
    expect(MIGRATIONS.map((m) => m.tag)).toEqual(folder.entries.map((e) => e.tag));
    expect(MIGRATIONS.every((m) => m.sql === folder.sql[m.tag])).toBe(true);
  });

  test("apply once, then nothing is pending; pragmas and sqlite-vec are in place", () => {
    const sqlite = freshDb();
    expect(applyMigrations(sqlite, MIGRATIONS).applied).toHaveLength(MIGRATIONS.length);
    expect(applyMigrations(sqlite, MIGRATIONS).applied).toHaveLength(0);
    expect(tables(sqlite)).toContain("api_keys");
    expect(sqlite.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(sqlite.pragma("foreign_keys", { simple: true })).toBe(1);
    expect(sqlite.pragma("synchronous", { simple: true })).toBe(1); // NORMAL
    expect(sqlite.pragma("busy_timeout", { simple: true })).toBe(5000);
    expect((sqlite.prepare("SELECT vec_version() AS v").get() as { v: string }).v).toMatch(/^v\d/);
  });

  test("a failing migration names itself and leaves nothing half-applied", () => {
    const sqlite = freshDb();
    const broken = [
      ...MIGRATIONS,
      { tag: "9998_good", when: Date.now() + 1, sql: "CREATE TABLE will_roll_back (id TEXT);" },
      { tag: "9999_broken", when: Date.now() + 2, sql: "CREATE TABLE ok_one (id TEXT);\n--> statement-breakpoint\nALTER TABLE no_such_table ADD COLUMN x TEXT;" },
    ];
    let error: unknown;
    try {
      applyMigrations(sqlite, broken);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(MigrationError);
    expect((error as Error).message).toStartWith("migration 9999_broken failed: no such table: no_such_table");
    expect(tables(sqlite)).not.toContain("will_roll_back");
    expect(tables(sqlite)).not.toContain("api_keys"); // all pending migrations share one transaction
  });

  test("a database migrated by a newer build is refused", () => {
    const sqlite = freshDb();
    applyMigrations(sqlite, [...MIGRATIONS, { tag: "9999_future", when: Date.now() + 10_000, sql: "CREATE TABLE future (id TEXT);" }]);
    expect(() => applyMigrations(sqlite, MIGRATIONS)).toThrow(/newer Parley/);
  });
});

describe("migration journal check", () => {
  const base = {
    entries: [
      { idx: 0, tag: "0000_a", when: 100 },
      { idx: 1, tag: "0001_b", when: 200 },
    ],
    sql: { "0000_a": "CREATE TABLE a (id TEXT);", "0001_b": "CREATE TABLE b (id TEXT);" },
  };

  test("the CI check passes on this checkout, history included", () => {
    const run = Bun.spawnSync([process.execPath, join(import.meta.dir, "..", "..", "scripts", "check-migrations.ts")], { stdout: "pipe", stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    expect(run.exitCode).toBe(0);
  });

  test("the repository's journal passes", () => {
    expect(journalProblems(readMigrationSet(join(import.meta.dir, "..", "..", "migrations")))).toEqual([]);
  });

  test("growing is fine", () => {
    const grown = { entries: [...base.entries, { idx: 2, tag: "0002_c", when: 300 }], sql: { ...base.sql, "0002_c": "SELECT 1;" } };
    expect(journalProblems(grown, base)).toEqual([]);
  });

  test("going backwards, dropping, reordering or editing is refused", () => {
    const backwards = { entries: [...base.entries, { idx: 2, tag: "0002_c", when: 150 }], sql: { ...base.sql, "0002_c": "SELECT 1;" } };
    expect(journalProblems(backwards).join()).toContain("goes backwards");
    expect(journalProblems({ entries: base.entries.slice(0, 1), sql: { "0000_a": base.sql["0000_a"] } }, base).join()).toContain("removed");
    const edited = { ...base, sql: { ...base.sql, "0000_a": "CREATE TABLE a (id TEXT, extra TEXT);" } };
    expect(journalProblems(edited, base).join()).toContain("edited");
    const swapped = { entries: [{ ...base.entries[1], idx: 0 }, { ...base.entries[0], idx: 1 }], sql: base.sql };
    expect(journalProblems(swapped, base).length).toBeGreaterThan(0);
    expect(journalProblems({ entries: base.entries, sql: { "0000_a": "x" } }).join()).toContain("0001_b.sql is missing");
  });
});

describe("rolling upgrades (README: Running a cluster)", () => {
  // From the first release that runs as a cluster on, a migration only adds (tables, nullable columns,
  // indexes, storage settings), so a node of the previous release keeps working on the new schema while
  // the others are upgraded one at a time. One that must drop, rename or retype breaks this rule on purpose.
  const SINCE = { sqlite: "0021_cluster_nodes", postgres: "0002_cluster_nodes" };
  const DESTRUCTIVE = /\b(DROP\s+(TABLE|COLUMN|INDEX)|RENAME|ALTER\s+COLUMN|TRUNCATE|DELETE\s+FROM|UPDATE\s+\S+\s+SET)\b/i;

  for (const [dialect, folder] of [["sqlite", "migrations"], ["postgres", "migrations/postgres"]] as const) {
    test(`${dialect}: every migration since ${SINCE[dialect]} only adds`, () => {
      const set = readMigrationSet(join(import.meta.dir, "..", "..", folder));
      const tags = set.entries.map((e) => e.tag);
      const since = tags.indexOf(SINCE[dialect]);
      expect(since).toBeGreaterThanOrEqual(0);
      const offending = tags.slice(since).filter((tag) => DESTRUCTIVE.test(set.sql[tag].replace(/--[^\n]*/g, "")));
      expect(offending).toEqual([]);
    });
  }
});
