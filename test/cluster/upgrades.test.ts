// Rolling upgrades on PostgreSQL (issue 36): a node refuses to start against a schema a newer Parley
// migrated (one line, non-zero exit, nothing served), and three nodes starting at the same moment on an
// empty database migrate it once: one of them applies every migration, the others wait on the advisory
// lock and find nothing left to do.
import { SQL } from "bun";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freshDatabase } from "../helpers/postgres.ts";
import { FROM_SOURCE, runParley, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { createTestContext } from "../helpers/server.ts";

const root = mkdtempSync(join(tmpdir(), "parley-upgrades-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

test("parley serve --database-url refuses a schema migrated by a newer Parley: one line, a non-zero exit", async () => {
  const url = freshDatabase();
  createTestContext({ databaseUrl: url }).close(); // migrated as this build knows it
  const db = new SQL(url);
  try {
    const [newest] = await db`SELECT max(created_at) AS at FROM __drizzle_migrations`;
    // A migration of a later release, as that release's node would have written it.
    await db`INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('a later release', ${Number(newest.at) + 86_400_000})`;
    const result = await runParley(FROM_SOURCE, ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", join(root, "old"), "--database-url", url]);
    expect(result.exitCode).not.toBe(0);
    const lines = result.stderr.trim().split("\n");
    expect(lines).toEqual(["parley: error: migration (database) failed: the database was migrated by a newer Parley; upgrade the executable"]);
    expect(result.stdout).toBe("");
    const [{ n }] = await db`SELECT count(*)::int AS n FROM nodes`;
    expect(n).toBe(0); // it never registered as a node
  } finally {
    await db.close();
  }
}, 60_000);

test("three nodes started at the same moment on an empty database: the migrations run once, and all three serve", async () => {
  const url = freshDatabase();
  const db = new SQL(url);
  const nodes: ServerProcess[] = [];
  try {
    const started = await Promise.allSettled([1, 2, 3].map((n) => spawnServer(FROM_SOURCE, ["--data-dir", join(root, `node${n}`), "--database-url", url])));
    for (const result of started) if (result.status === "fulfilled") nodes.push(result.value);
    expect(started.map((result) => result.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
    const migrated = nodes.filter((node) => node.stderr().includes("database migrated"));
    expect(migrated).toHaveLength(1);
    const journal = (await db`SELECT created_at, count(*)::int AS n FROM __drizzle_migrations GROUP BY created_at ORDER BY created_at`) as { n: number }[];
    expect(journal.length).toBeGreaterThan(0);
    expect(journal.filter((row) => row.n !== 1)).toEqual([]);
    expect(migrated[0].stderr()).toContain(`applied=`);
    const [{ n }] = await db`SELECT count(*)::int AS n FROM nodes WHERE stopped_at IS NULL AND lost_at IS NULL`;
    expect(n).toBe(3);
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
    await db.close();
  }
}, 60_000);
