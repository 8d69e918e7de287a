import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/core/logger.ts";
import { ROWS_PER_INSERT } from "../../src/core/batch-rows.ts";
import { WriteBehind } from "../../src/core/write-behind.ts";
import { Database } from "../../src/db/native.ts";
import type { Sqlite } from "../../src/db/connection.ts";

const INSERT = "INSERT INTO t (n, label) VALUES (?, ?)";

let dir: string;
let path: string;
let sqlite: Sqlite;
let logs: string[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "parley-write-behind-"));
  path = join(dir, "db");
  sqlite = new Database(path);
  sqlite.pragma("journal_mode = WAL");
  sqlite.exec("CREATE TABLE t (seq INTEGER PRIMARY KEY AUTOINCREMENT, n INTEGER NOT NULL UNIQUE, label TEXT)");
  logs = [];
});

afterEach(() => {
  sqlite.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = () => sqlite.prepare("SELECT n, label FROM t ORDER BY seq").all() as { n: number; label: string | null }[];
const writer = (delayMs = 100_000, maxPending = 250) => new WriteBehind(sqlite, createLogger("info", (line) => logs.push(line)), delayMs, maxPending);

describe.each([
  ["on its own thread", true],
  ["on the main connection", false],
])("write-behind %s", (_, threaded) => {
  const start = (wb: WriteBehind) => (threaded ? wb.startThread(path) : undefined);

  test("nothing is written before a flush; after it every row is committed, in the order added", async () => {
    const wb = writer();
    start(wb);
    for (let n = 1; n <= 5; n++) wb.add(INSERT, [n, `row ${n}`]);
    expect(rows()).toEqual([]);
    wb.flush();
    expect(rows().map((row) => row.n)).toEqual([1, 2, 3, 4, 5]);
    wb.close();
    await Bun.sleep(20); // anything the thread reports on its way out arrives as a message
    expect(logs.filter((line) => line.includes("ERROR"))).toEqual([]);
  });

  test("a full batch goes without being asked; coalesced state is collected on every flush", () => {
    const wb = writer(100_000, 3);
    start(wb);
    let pending: number[] = [];
    wb.register(() => {
      for (const n of pending) wb.add(INSERT, [n, "registered"]);
      pending = [];
    });
    pending = [100];
    for (let n = 1; n <= 7; n++) wb.add(INSERT, [n, null]);
    wb.close(); // flushes what is left, then stops the thread
    expect(rows().map((row) => row.n)).toEqual([1, 2, 3, 100, 4, 5, 6, 7]) // the flusher's row joins the batch that went at 3 rows;
  });

  test("a failing batch is logged and rolled back whole; the batches after it still commit", async () => {
    const wb = writer();
    start(wb);
    wb.add(INSERT, [1, "first"]);
    wb.flush();
    wb.add(INSERT, [2, "lost with its batch"]);
    wb.add(INSERT, [1, "duplicate key"]);
    wb.flush();
    wb.add(INSERT, [3, "after"]);
    wb.close();
    expect(rows()).toEqual([
      { n: 1, label: "first" },
      { n: 3, label: "after" },
    ]);
    await Bun.sleep(20); // the thread reports its failure by message
    expect(logs.filter((line) => line.includes("write-behind flush failed"))).toHaveLength(1);
  });
  test("a statement that cannot be prepared is reported and its rows skipped, not the others'", async () => {
    const wb = writer();
    start(wb);
    wb.add("INSERT INTO missing_table VALUES (?)", [1]);
    wb.add(INSERT, [1, "kept"]);
    wb.flush();
    expect(rows()).toEqual([{ n: 1, label: "kept" }]);
    await Bun.sleep(20); // a thread's report arrives as a message
    expect(logs.some((line) => line.includes("write-behind flush failed") && line.includes("missing_table"))).toBe(true);
    wb.close();
  });

  test("runs of one INSERT go in many rows per statement; rows of other statements keep their place", () => {
    const wb = writer();
    start(wb);
    const total = ROWS_PER_INSERT * 2 + 5;
    for (let n = 1; n <= total; n++) {
      wb.add(INSERT, [n, `row ${n}`]);
      // An UPDATE inside the run: it sees exactly the rows added before it.
      if (n === ROWS_PER_INSERT + 3) wb.add("UPDATE t SET label = ? WHERE n <= ?", ["updated", n]);
    }
    wb.flush();
    const written = rows();
    expect(written.map((row) => row.n)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(written.filter((row) => row.label === "updated").map((row) => row.n)).toEqual(Array.from({ length: ROWS_PER_INSERT + 3 }, (_, i) => i + 1));
    wb.close();
  });

  test("a failing row inside a many-row INSERT rolls its whole batch back", async () => {
    const wb = writer();
    start(wb);
    for (let n = 1; n <= ROWS_PER_INSERT * 2; n++) wb.add(INSERT, [n === 10 ? 5 : n, null]);
    wb.flush();
    expect(rows()).toEqual([]);
    wb.add(INSERT, [1, "next batch"]);
    wb.close();
    expect(rows()).toEqual([{ n: 1, label: "next batch" }]);
    await Bun.sleep(20);
    expect(logs.filter((line) => line.includes("write-behind flush failed"))).toHaveLength(1);
  });
});

describe("write-behind on the main connection", () => {
  test("a run of one INSERT is written through a many-row statement", () => {
    const prepared: string[] = [];
    const prepare = sqlite.prepare.bind(sqlite);
    sqlite.prepare = ((source: string) => (prepared.push(source), prepare(source))) as typeof sqlite.prepare;
    const wb = writer();
    for (let n = 1; n <= ROWS_PER_INSERT + 1; n++) wb.add(INSERT, [n, null]);
    wb.flush();
    expect(rows()).toHaveLength(ROWS_PER_INSERT + 1);
    expect(prepared.some((source) => source.startsWith(INSERT) && source.split("(?, ?)").length - 1 === ROWS_PER_INSERT)).toBe(true);
  });
});

describe("write-behind thread", () => {
  test("close() leaves no connection behind: the database checkpoints and its -wal file goes", () => {
    const wb = writer();
    wb.startThread(path);
    for (let n = 1; n <= 300; n++) wb.add(INSERT, [n, "x".repeat(200)]);
    wb.close();
    expect(rows()).toHaveLength(300);
    sqlite.close();
    expect(existsSync(`${path}-wal`)).toBe(false); // the last connection to close removes it
    sqlite = new Database(path); // for afterEach
  });
});
