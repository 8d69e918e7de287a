// The two dialects must not drift: after every migration of each, SQLite's schema and PostgreSQL's
// agree on tables, columns, types, nullability, defaults, primary keys, indexes and foreign keys.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, openPostgresDatabase } from "../../src/db/connection.ts";
import { postgresModel, sqliteModel } from "../../src/db/introspect.ts";
import { applyMigrations, applyPostgresMigrations } from "../../src/db/migrate.ts";
import { MIGRATIONS, POSTGRES_MIGRATIONS } from "../../src/db/migrations.ts";
import { freshDatabase } from "../helpers/postgres.ts";

const dir = mkdtempSync(join(tmpdir(), "parley-drift-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("SQLite's and PostgreSQL's schemas are the same after their migrations", () => {
  const { sqlite } = openDatabase(join(dir, "parley.db"), dir);
  applyMigrations(sqlite, MIGRATIONS);
  const lite = sqliteModel(sqlite);
  sqlite.close();

  const { sqlite: pg } = openPostgresDatabase(freshDatabase());
  applyPostgresMigrations(pg, POSTGRES_MIGRATIONS);
  const postgres = postgresModel(pg);
  pg.close();

  expect(lite.length).toBeGreaterThan(40);
  expect(postgres.map((t) => t.name)).toEqual(lite.map((t) => t.name));
  for (const table of lite) expect({ table: table.name, ...postgres.find((t) => t.name === table.name)! }).toEqual({ table: table.name, ...table });
});

test("the newest migration of each dialect is the same schema version", () => {
  // A change written for one dialect only leaves the other's journal behind: the PostgreSQL series
  // must reach the SQLite one's last time stamp (its baseline took SQLite's, later ones each pair up).
  expect(POSTGRES_MIGRATIONS.at(-1)!.when).toBe(MIGRATIONS.at(-1)!.when);
});

test("the comparison sees a difference: nullability, a default, an index, a foreign key", () => {
  const url = freshDatabase();
  const { sqlite: pg } = openPostgresDatabase(url);
  applyPostgresMigrations(pg, POSTGRES_MIGRATIONS);
  let previous = postgresModel(pg);
  for (const change of [
    "ALTER TABLE agents ALTER COLUMN name DROP NOT NULL",
    "ALTER TABLE jobs ALTER COLUMN errors SET DEFAULT '{}'",
    "CREATE INDEX extra_idx ON calls (status)",
    "ALTER TABLE agents ADD COLUMN extra bigint",
  ]) {
    pg.exec(change);
    const now = postgresModel(pg);
    expect(now).not.toEqual(previous);
    previous = now;
  }
  pg.close();
});
