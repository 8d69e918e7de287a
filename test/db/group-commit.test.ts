import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GroupCommit } from "../../src/core/group-commit.ts";
import { Database } from "../../src/db/native.ts";

describe("group commit", () => {
  test("tasks of one turn share a transaction; a failing one rolls back only itself; results arrive after the commit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "parley-group-"));
    try {
      const sqlite = new Database(join(dir, "db"));
      sqlite.exec("CREATE TABLE t (n INTEGER PRIMARY KEY)");
      const commits: number[] = [];
      const original = sqlite.transaction.bind(sqlite);
      let depth = 0;
      // Count outermost transactions only (savepoints nest inside them).
      sqlite.transaction = ((fn: () => unknown) => original(() => (depth++ === 0 ? commits.push(1) : 0, (() => { try { return fn(); } finally { depth--; } })()))) as typeof sqlite.transaction;
      const group = new GroupCommit(sqlite);
      const insert = (n: number) => () => sqlite.prepare("INSERT INTO t VALUES (?)").run(n).changes;
      const results = await Promise.allSettled([group.run(insert(1)), group.run(insert(2)), group.run(insert(1)), group.run(insert(3))]);
      expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
      expect(sqlite.prepare("SELECT n FROM t ORDER BY n").all()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
      expect(commits).toHaveLength(1);
      await group.run(insert(4));
      expect(commits).toHaveLength(2);
      sqlite.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
