import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger } from "../../src/core/logger.ts";
import { ROWS_PER_INSERT } from "../../src/core/batch-rows.ts";
import { WriteBehind } from "../../src/core/write-behind.ts";
import { Database } from "../../src/db/native.ts";
import type { Sqlite } from "../../src/db/connection.ts";
import { lockDatabase } from "../helpers/write-lock.ts";
import { MetricsRegistry } from "../../src/core/metrics.ts";
import { parseSamples, valueOf } from "../helpers/prometheus.ts";

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
const writer = (options: { maxPending?: number; heldRowsLimit?: number; metrics?: MetricsRegistry } = {}) =>
  new WriteBehind(sqlite, createLogger("info", (line) => logs.push(line)), { delayMs: 100_000, ...options });
const errors = () => logs.filter((line) => line.includes(" ERROR "));

async function waitFor(check: () => boolean, ms = 5_000): Promise<void> {
  for (const deadline = Date.now() + ms; !check(); await Bun.sleep(25)) if (Date.now() > deadline) throw new Error("timed out");
}

describe.each([
  ["on its own thread", true],
  ["on the main connection", false],
])("write-behind %s", (_, threaded) => {
  // Either connection waits 50 ms for another's write lock, then the batch is held to be written again.
  const start = (wb: WriteBehind) => (threaded ? wb.startThread(path, 50) : sqlite.pragma("busy_timeout = 50"));

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
    const wb = writer({ maxPending: 3 });
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

  test("a row that fails costs only itself: the rest of its batch and the batches after it commit", async () => {
    const wb = writer();
    start(wb);
    wb.add(INSERT, [1, "first"]);
    wb.flush();
    wb.add(INSERT, [2, "kept beside the bad row"]);
    wb.add(INSERT, [1, "duplicate key"]);
    wb.flush();
    wb.add(INSERT, [3, "after"]);
    wb.close();
    expect(rows()).toEqual([
      { n: 1, label: "first" },
      { n: 2, label: "kept beside the bad row" },
      { n: 3, label: "after" },
    ]);
    await Bun.sleep(20); // the thread reports its failure by message
    expect(errors()).toHaveLength(1);
    expect(errors()[0]).toContain("write-behind rows lost");
    expect(errors()[0]).toContain("rows=1");
  });

  test("a statement that cannot be prepared is reported and its rows skipped, not the others'", async () => {
    const wb = writer();
    start(wb);
    wb.add("INSERT INTO missing_table VALUES (?)", [1]);
    wb.add(INSERT, [1, "kept"]);
    wb.flush();
    expect(rows()).toEqual([{ n: 1, label: "kept" }]);
    await Bun.sleep(20); // a thread's report arrives as a message
    expect(errors().some((line) => line.includes("write-behind rows lost") && line.includes("missing_table"))).toBe(true);
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

  test("a failing row inside a many-row INSERT costs only that row", async () => {
    const wb = writer();
    start(wb);
    for (let n = 1; n <= ROWS_PER_INSERT * 2; n++) wb.add(INSERT, [n === 10 ? 5 : n, null]);
    wb.flush();
    expect(rows().map((row) => row.n)).toEqual(Array.from({ length: ROWS_PER_INSERT * 2 }, (_, i) => i + 1).filter((n) => n !== 10));
    wb.close();
    await Bun.sleep(20);
    expect(errors()).toHaveLength(1);
    expect(errors()[0]).toContain("rows=1");
  });

  test("rows the database refuses are held, in order, and written once it takes them", async () => {
    const wb = writer();
    start(wb);
    const lock = lockDatabase(path);
    for (let n = 1; n <= 3; n++) wb.add(INSERT, [n, "during the lock"]);
    wb.flush(); // refused: held, not lost
    for (let n = 4; n <= 5; n++) wb.add(INSERT, [n, "behind the held rows"]);
    wb.flush(); // held behind them without trying, so nothing overtakes them
    expect(rows()).toEqual([]);
    await Bun.sleep(300); // a retry or two, still refused
    lock.release();
    await waitFor(() => rows().length === 5);
    expect(rows().map((row) => row.n)).toEqual([1, 2, 3, 4, 5]);
    wb.add(INSERT, [6, "after"]);
    wb.close();
    expect(rows().map((row) => row.n)).toEqual([1, 2, 3, 4, 5, 6]);
    await Bun.sleep(20);
    expect(errors()).toEqual([]);
    expect(logs.filter((line) => line.includes("holding them to write again"))).toHaveLength(1);
    expect(logs.some((line) => line.includes("held through a refusal are written") && line.includes("rows=5"))).toBe(true);
  });

  test("what an operator's metrics show: rows queued, then held through a refusal (counted once), then none", async () => {
    const metrics = new MetricsRegistry();
    const wb = writer({ metrics, heldRowsLimit: 4 });
    start(wb);
    const read = () => {
      const samples = parseSamples(metrics.render());
      return {
        queued: valueOf(samples, "parley_write_behind_backlog_rows", { state: "queued" }),
        held: valueOf(samples, "parley_write_behind_backlog_rows", { state: "held" }),
        refusals: valueOf(samples, "parley_db_refusals_total", { site: "write_behind", kind: "busy" }),
        lost: valueOf(samples, "parley_write_behind_rows_lost_total"),
      };
    };
    const lock = lockDatabase(path);
    for (let n = 1; n <= 3; n++) wb.add(INSERT, [n, null]);
    expect(read()).toEqual({ queued: 3, held: 0, refusals: 0, lost: 0 });
    wb.flush();
    await Bun.sleep(20); // a thread's report arrives as a message
    expect(read()).toEqual({ queued: 0, held: 3, refusals: 1, lost: 0 });
    for (let n = 4; n <= 5; n++) wb.add(INSERT, [n, null]);
    wb.flush(); // past the limit of 4: the oldest batch (3 rows) is given up
    await Bun.sleep(20);
    expect(read()).toEqual({ queued: 0, held: 2, refusals: 1, lost: 3 });
    lock.release();
    await waitFor(() => rows().length === 2);
    await Bun.sleep(20);
    expect(read()).toEqual({ queued: 0, held: 0, refusals: 1, lost: 3 });
    wb.close();
  });

  test("rows still refused when the writer closes are reported lost, with their count", async () => {
    const wb = writer();
    start(wb);
    const lock = lockDatabase(path);
    for (let n = 1; n <= 3; n++) wb.add(INSERT, [n, null]);
    wb.close();
    lock.release();
    await Bun.sleep(20);
    expect(rows()).toEqual([]);
    expect(errors()).toHaveLength(1);
    expect(errors()[0]).toContain("rows=3");
  });

  test("past the held-rows limit the oldest held batch is given up, and said so", async () => {
    const wb = writer({ heldRowsLimit: 4 });
    start(wb);
    const lock = lockDatabase(path);
    for (let n = 1; n <= 3; n++) wb.add(INSERT, [n, "given up"]);
    wb.flush();
    for (let n = 4; n <= 6; n++) wb.add(INSERT, [n, "kept"]);
    wb.flush();
    lock.release();
    await waitFor(() => rows().length === 3);
    expect(rows().map((row) => row.n)).toEqual([4, 5, 6]);
    wb.close();
    await Bun.sleep(20);
    expect(errors()).toHaveLength(1);
    expect(errors()[0]).toContain("more than 4 rows held");
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
