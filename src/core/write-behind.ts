import type { Sqlite } from "../db/connection.ts";
import { BatchStatements, type BatchRow, type SqlValue } from "./batch-rows.ts";
import type { Logger } from "./logger.ts";
import type { ThreadMessage, ThreadReply } from "./write-behind-thread.ts";

export type { SqlValue } from "./batch-rows.ts";

/** A worker that has not answered a flush in this long is taken for dead (its rows are logged as lost). */
const FLUSH_WAIT_MS = 10_000;

/**
 * Collects small bookkeeping writes (audit rows, key last-used times) and commits them together,
 * so a request never waits on its own commit for them. Readers call flush() first to see them.
 *
 * A server hands the commits to a thread of their own (startThread) with its own connection: the
 * inserts (~10 µs a row), their commits and the checkpoints those commits trigger then never hold up
 * the event loop. One-shot commands write on their own connection, in the flush.
 */
export class WriteBehind {
  private rows: BatchRow[] = [];
  private statements = new Map<string, number>();
  private statementTexts: string[] = [];
  /** The main connection's statements, for writing here (one-shot commands, or after the thread died). */
  private here: BatchStatements | null = null;
  private flushers = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private thread: WriterThread | null = null;
  private sending = false;

  // A batch of 250 stays near 2 ms of writing, inside the latency budget of requests behind it when it runs here.
  constructor(private sqlite: Sqlite, private logger: Logger, private delayMs = 100, private maxPending = 250) {}

  /** Moves the commits to a writer thread with its own connection to `databasePath`. */
  startThread(databasePath: string): void {
    if (this.thread) return;
    this.flush();
    this.thread = new WriterThread(databasePath, this.logger);
  }

  /** Queues one row for a statement (SQL whose values are `?`); batches commit in the order rows were added, each whole or not at all. */
  add(sql: string, values: SqlValue[]): void {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.statementTexts.push(sql) - 1;
      this.statements.set(sql, statement);
    }
    this.rows.push([statement, values]);
    if (this.rows.length >= this.maxPending && !this.sending) this.send();
    else this.schedule();
  }

  /** Registers a writer of coalesced state (e.g. a map of last-used times); it add()s its rows on every flush. */
  register(flusher: () => void): void {
    this.flushers.add(flusher);
  }

  schedule(): void {
    if (!this.timer) {
      this.timer = setTimeout(() => this.send(), this.delayMs);
      this.timer.unref?.();
    }
  }

  /** Everything queued so far is committed when this returns. */
  flush(): void {
    this.send();
    this.thread?.waitForCommits();
  }

  /** Flushes and stops the writer thread (its connection closes before this returns). */
  close(): void {
    this.flush();
    this.thread?.close();
    this.thread = null;
  }

  /** Hands what is queued to the writer thread, or writes it here when there is none. */
  private send(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.sending = true;
    try {
      for (const flusher of this.flushers) flusher();
    } finally {
      this.sending = false;
    }
    const rows = this.rows;
    if (rows.length === 0) return;
    this.rows = [];
    if (this.thread?.alive) this.thread.send(this.statementTexts, rows);
    else this.writeHere(rows);
  }

  private writeHere(rows: BatchRow[]): void {
    try {
      const here = (this.here ??= new BatchStatements(this.sqlite, (error) => this.logger.error("write-behind flush failed", { error, rows: 0 })));
      here.add(this.statementTexts.slice(here.count));
      this.sqlite.transaction(() => here.write(rows))();
    } catch (error) {
      this.logger.error("write-behind flush failed", { error, rows: rows.length });
    }
  }
}

/** The main thread's side of the writer thread: batches out, commit sequence numbers back through shared memory. */
class WriterThread {
  private readonly worker: Worker;
  /** [0]: the last batch committed (or given up); [1]: 1 once the thread's connection is closed. */
  private readonly signal = new Int32Array(new SharedArrayBuffer(8));
  private sent = 0;
  private statementsSent = 0;
  alive = true;

  constructor(databasePath: string, private logger: Logger) {
    // Listed as an entrypoint of the executable in scripts/build.ts, so this URL resolves inside it too.
    this.worker = new Worker(new URL("./write-behind-thread.ts", import.meta.url));
    this.worker.unref?.();
    this.worker.onmessage = ({ data }: MessageEvent<ThreadReply>) => {
      this.logger.error("write-behind flush failed", { error: data.error, rows: data.rows });
    };
    this.worker.onerror = (event) => {
      this.alive = false;
      this.logger.error("write-behind thread failed; writing on the main connection from now on", { error: event.message });
    };
    this.post({ type: "open", path: databasePath, signal: this.signal.buffer as SharedArrayBuffer });
  }

  send(statementTexts: string[], rows: BatchRow[]): void {
    const newStatements = statementTexts.slice(this.statementsSent);
    this.statementsSent = statementTexts.length;
    // One string is far cheaper to hand over than a structured clone of hundreds of small arrays.
    this.post({ type: "batch", seq: ++this.sent, newStatements, rows: JSON.stringify(rows) });
  }

  /** Blocks until the thread has committed every batch sent so far. */
  waitForCommits(): void {
    const deadline = performance.now() + FLUSH_WAIT_MS;
    for (let done = Atomics.load(this.signal, 0); done < this.sent; done = Atomics.load(this.signal, 0)) {
      const left = deadline - performance.now();
      if (left <= 0 || !this.alive) {
        this.logger.error("write-behind thread did not commit in time", { pending_batches: this.sent - done });
        return;
      }
      Atomics.wait(this.signal, 0, done, left);
    }
  }

  /** The thread closes its connection and ends itself; one that does not answer is terminated. */
  close(): void {
    const closed = this.alive && (this.post({ type: "close" }), Atomics.wait(this.signal, 1, 0, FLUSH_WAIT_MS) !== "timed-out");
    if (!closed) this.worker.terminate();
    this.alive = false;
  }

  private post(message: ThreadMessage): void {
    this.worker.postMessage(message);
  }
}
