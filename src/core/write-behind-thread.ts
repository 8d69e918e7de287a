// The write-behind's thread (see WriteBehind.startThread): its own connection to the database,
// one transaction per batch, and the batch's number stored in shared memory once it is committed.
import type BetterSqlite3 from "better-sqlite3";
import { Database } from "../db/native.ts";
import { BatchStatements, type BatchRow } from "./batch-rows.ts";

/** rows: JSON of [statement index, values][] in commit order. */
export type BatchMessage = { type: "batch"; seq: number; newStatements: string[]; rows: string };
export type ThreadMessage = { type: "open"; path: string; signal: SharedArrayBuffer } | BatchMessage | { type: "close" };
/** Sent back only when a batch could not be written. */
export type ThreadReply = { error: string; rows: number };

declare const self: Worker;

let db: BetterSqlite3.Database | null = null;
let signal: Int32Array | null = null;
// Numbered as the main thread numbers them; one that fails to prepare is reported and its rows skipped, not the others'.
let statements: BatchStatements | null = null;

function settle(slot: number, value: number): void {
  Atomics.store(signal!, slot, value);
  Atomics.notify(signal!, slot);
}

self.onmessage = ({ data }: MessageEvent<ThreadMessage>) => {
  if (data.type === "open") {
    signal = new Int32Array(data.signal);
    db = new Database(data.path);
    db.pragma("busy_timeout = 30000"); // only this thread waits: a long transaction elsewhere must not cost rows
    db.pragma("synchronous = NORMAL");
    statements = new BatchStatements(db, (error) => self.postMessage({ error, rows: 0 } satisfies ThreadReply));
  } else if (data.type === "batch") {
    statements!.add(data.newStatements);
    const rows = JSON.parse(data.rows) as BatchRow[];
    try {
      db!.transaction(() => statements!.write(rows)).immediate();
    } catch (error) {
      self.postMessage({ error: String((error as Error)?.message ?? error), rows: rows.length } satisfies ThreadReply);
    }
    settle(0, data.seq);
  } else {
    db?.close();
    db = null;
    settle(1, 1);
    process.exit(0); // in a worker, ends the thread only; failure reports it already sent still arrive
  }
};
