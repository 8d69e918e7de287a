// The write-behind's thread (see WriteBehind.startThread): its own connection to the database,
// one transaction per batch, and the batch's number stored in shared memory once it is committed
// (or held, while the database refuses it: see BatchWriter).
import type BetterSqlite3 from "better-sqlite3";
import { postgresClient } from "../db/postgres-client.ts";
import { Database } from "../db/native.ts";
import type { BatchRow } from "./batch-rows.ts";
import { BatchWriter, type BatchReport } from "./batch-writer.ts";

/** rows: JSON of [statement index, values][] in commit order. */
export type BatchMessage = { type: "batch"; seq: number; newStatements: string[]; rows: string };
/** path: SQLite's file, or a postgres:// URL. */
export type OpenMessage = { type: "open"; path: string; signal: SharedArrayBuffer; busyTimeoutMs: number; heldRowsLimit?: number };
export type ThreadMessage = OpenMessage | BatchMessage | { type: "close" };
/** Sent back when rows are lost, held through a refusal, or written after one. */
export type ThreadReply = BatchReport;

declare const self: Worker;

let db: BetterSqlite3.Database | null = null;
let signal: Int32Array | null = null;
// Statements are numbered as the main thread numbers them; one that fails to prepare is reported and its rows skipped, not the others'.
let writer: BatchWriter | null = null;

function settle(slot: number, value: number): void {
  Atomics.store(signal!, slot, value);
  Atomics.notify(signal!, slot);
}

const reply = (report: ThreadReply) => self.postMessage(report);

self.onmessage = ({ data }: MessageEvent<ThreadMessage>) => {
  if (data.type === "open") {
    signal = new Int32Array(data.signal);
    if (/^postgres(ql)?:\/\//.test(data.path)) {
      // Its own connection, through the same synchronous client: this thread may wait, the event loop does not.
      db = postgresClient().openPostgres(data.path).db as unknown as BetterSqlite3.Database;
    } else {
      db = new Database(data.path);
      db.pragma(`busy_timeout = ${data.busyTimeoutMs}`);
      db.pragma("synchronous = NORMAL");
    }
    writer = new BatchWriter(db, reply, { heldRowsLimit: data.heldRowsLimit, onHeld: (rows) => Atomics.store(signal!, 2, rows) });
  } else if (data.type === "batch") {
    writer!.statements.add(data.newStatements);
    writer!.write(JSON.parse(data.rows) as BatchRow[]);
    settle(0, data.seq);
  } else {
    writer?.close();
    db?.close();
    db = null;
    settle(1, 1);
    process.exit(0); // in a worker, ends the thread only; reports it already sent still arrive
  }
};
