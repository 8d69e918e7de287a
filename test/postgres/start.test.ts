// --database-url at start: every wrong URL, unreachable or unfit server is one line naming what is
// wrong, before anything listens or is created; migrations run once under two starting processes.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, freshDatabase, sharedPostgres } from "../helpers/postgres.ts";
import { FROM_SOURCE, runParley } from "../helpers/process.ts";

const root = mkdtempSync(join(tmpdir(), "parley-pgstart-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let dirs = 0;

async function refused(url: string, expected: RegExp) {
  const dataDir = join(root, `d${++dirs}`);
  const result = await runParley(FROM_SOURCE, ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, "--database-url", url]);
  expect(result.exitCode).not.toBe(0);
  const lines = result.stderr.trim().split("\n");
  expect(lines).toHaveLength(1); // one line, no stack trace
  expect(lines[0]).toMatch(/^parley: error: --database-url/);
  expect(lines[0]).toMatch(expected);
  expect(result.stdout).not.toContain("listening");
  expect(existsSync(dataDir)).toBe(false); // nothing created
}

describe("a wrong --database-url stops the start with one line", () => {
  const pg = sharedPostgres();
  const at = `127.0.0.1:${pg.port}`;
  test.each([
    ["not a URL", "nonsense", /not a URL/],
    ["another database's scheme", "mysql://parley@localhost/parley", /must start with postgres:\/\//],
    ["no database named", `postgres://parley@${at}`, /names no database/],
    ["no role named", `postgres://${at}/parley`, /names no role/],
    ["an unknown sslmode", `postgres://parley@${at}/postgres?sslmode=sometimes`, /sslmode must be one of/],
    ["an unknown parameter", `postgres://parley@${at}/postgres?pool=5`, /parameter "pool" is not supported/],
    ["verify-full without a CA", `postgres://parley@${at}/postgres?sslmode=verify-full`, /needs sslrootcert/],
  ])("%s", async (_name, url, expected) => refused(url as string, expected as RegExp));

  test("nothing listening there", async () => refused(`postgres://parley@127.0.0.1:${freePort()}/postgres`, /nothing accepts connections at 127\.0\.0\.1:\d+ \(connection refused\)/));
  test("a role the server does not know", async () => refused(`postgres://stranger@${at}/postgres?sslmode=disable`, /refused role "stranger"/));
  test("a database that does not exist", async () => refused(`postgres://parley@${at}/nowhere?sslmode=disable`, /database "nowhere" does not exist/));
  test("sslmode=require against a server without TLS", async () => refused(`postgres://parley@${at}/postgres?sslmode=require`, /TLS to .* failed \(sslmode=require\)/));

  test("a role that may not create the tables", async () => {
    const url = freshDatabase();
    const database = new URL(url).pathname.slice(1);
    pg.sql(`CREATE ROLE limited_${database} LOGIN`);
    await refused(`postgres://limited_${database}@${at}/${database}?sslmode=disable`, /may not create tables in schema public .*GRANT CREATE ON SCHEMA public/);
  });

  test("a role that may not write the tables of a migrated database", async () => {
    const url = freshDatabase();
    const migrated = await runParley(FROM_SOURCE, ["migrate", "--data-dir", join(root, `d${++dirs}`), "--database-url", url]);
    expect(migrated.exitCode).toBe(0);
    const database = new URL(url).pathname.slice(1);
    pg.sql(`CREATE ROLE reader_${database} LOGIN; GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader_${database}`, database);
    await refused(`postgres://reader_${database}@${at}/${database}?sslmode=disable`, /cannot read and write tables .*GRANT SELECT, INSERT, UPDATE, DELETE/);
  });
});

test("two processes migrating one database at once: one applies, the other finds it done", async () => {
  const url = freshDatabase();
  const runs = await Promise.all([1, 2].map((n) => runParley(FROM_SOURCE, ["migrate", "--data-dir", join(root, `m${n}`), "--database-url", url])));
  for (const run of runs) expect(run.exitCode).toBe(0);
  const said = runs.map((r) => r.stdout.trim()).sort();
  expect(said[0]).toMatch(/^applied \d+ migration\(s\)/);
  expect(said[1]).toMatch(/^database is up to date/);
  const pg = sharedPostgres();
  expect(pg.sql("SELECT count(*) FROM __drizzle_migrations", new URL(url).pathname.slice(1))).toBe("1");
});

test("backup and restore, which copy SQLite files, refuse on PostgreSQL and name pg_dump", async () => {
  const url = `postgres://parley@127.0.0.1:${sharedPostgres().port}/postgres`;
  for (const args of [["backup", "--out", join(root, "b.tar")], ["restore", join(root, "b.tar")]]) {
    const result = await runParley(FROM_SOURCE, [...args, "--data-dir", join(root, `r${++dirs}`), "--database-url", url]);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr.trim()).toMatch(/^parley: error: backup and restore copy an SQLite instance; on PostgreSQL, back the database up with pg_dump/);
    expect(existsSync(join(root, "b.tar"))).toBe(false);
  }
});
