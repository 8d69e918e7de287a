import type { Sqlite } from "../db/connection.ts";
import type { BatchRow, SqlValue } from "./batch-rows.ts";
import { BatchWriter, HELD_ROWS_LIMIT, type BatchReport } from "./batch-writer.ts";
import type { Logger } from "./logger.ts";
import type { MetricsRegistry } from "./metrics.ts";
import { countRefusalKind } from "./refusal-count.ts";
import type { ThreadMessage, ThreadReply } from "./write-behind-thread.ts";

export type { SqlValue } from "./batch-rows.ts";

/** A worker that has not answered a flush in this long is taken for dead (its rows are logged as lost). */
const FLUSH_WAIT_MS = 10_000;
/** How long the writer thread waits for another connection's write lock before it holds a batch to try again. */
const THREAD_BUSY_TIMEOUT_MS = 5_000;

export interface WriteBehindOptions {
  delayMs?: number;
  maxPending?: number;
  /** See BatchWriter: rows held while the database refuses them. */
  heldRowsLimit?: number;
  /** Where its backlog, lost rows and refusals are counted. */
  metrics?: MetricsRegistry;
}

/**
 * Collects small bookkeeping writes (audit rows, key last-used times) and commits them together,
 * so a request never waits on its own commit for them. Readers call flush() first to see them.
 *
 * A server hands the commits to a thread of their own (startThread) with its own connection: the
 * inserts (~10 µs a row), their commits and the checkpoints those commits trigger then never hold up
 * the event loop. One-shot commands write on their own connection, in the flush.
 *
 * A database that refuses writes for a while (another connection's long write lock, a full disk)
 * costs no rows: they are held in memory, in order, and written once it takes them (BatchWriter).
 */
export class WriteBehind {
  private rows: BatchRow[] = [];
  private statements = new Map<string, number>();
  private statementTexts: string[] = [];
  /** The main connection's writer, for writing here (one-shot commands, or after the thread died). */
  private here: BatchWriter | null = null;
  private flushers = new Set<() => void>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private thread: WriterThread | null = null;
  private sending = false;
  private onReport: (report: BatchReport) => void = () => {};

  private readonly delayMs: number;
  private readonly maxPending: number;
  private readonly heldRowsLimit: number;

  constructor(private sqlite: Sqlite, private logger: Logger, options: WriteBehindOptions = {}) {
    this.delayMs = options.delayMs ?? 100;
    // A batch of 250 stays near 2 ms of writing, inside the latency budget of requests behind it when it runs here.
    this.maxPending = options.maxPending ?? 250;
    this.heldRowsLimit = options.heldRowsLimit ?? HELD_ROWS_LIMIT;
    if (options.metrics) this.countInto(options.metrics);
  }

  /** Counts what an operator watches: the backlog (read at each scrape), rows lost, refusals met. */
  private countInto(metrics: MetricsRegistry): void {
    const backlog = metrics.gauge("parley_write_behind_backlog_rows", "Bookkeeping rows (audit rows, keys' last-used times) not yet committed: queued for the next batch, or held while the database refuses them.", ["state"]);
    const lost = metrics.counter("parley_write_behind_rows_lost_total", "Bookkeeping rows given up: a defect in the row, or beyond the held-rows limit through a long refusal.");
    metrics.onCollect("write_behind", () => {
      backlog.labels("queued").set(this.rows.length);
      backlog.labels("held").set(this.heldRows);
    });
    this.onReport = (report) => {
      if (report.kind === "lost") lost.labels().inc(report.rows);
      else if (report.kind === "held") countRefusalKind(metrics, "write_behind", report.refusal);
    };
  }

  /** Rows held through a refusal, on whichever connection writes them. */
  get heldRows(): number {
    return (this.thread?.heldRows ?? 0) + (this.here?.heldCount ?? 0);
  }

  /** Moves the commits to a writer thread with its own connection to `databasePath`. */
  /** `database`: SQLite's file, or a PostgreSQL URL (the thread then opens its own connection there). */
  startThread(database: string, busyTimeoutMs = THREAD_BUSY_TIMEOUT_MS): void {
    if (this.thread) return;
    this.flush();
    this.thread = new WriterThread(database, (report) => this.report(report), this.logger, { busyTimeoutMs, heldRowsLimit: this.heldRowsLimit });
  }

  /** Queues one row for a statement (SQL whose values are `?`); rows commit in the order they were added (a row the database rejects costs only itself). */
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

  /** Everything queued so far is committed when this returns (or held, while the database refuses writes). */
  flush(): void {
    this.send();
    this.thread?.waitForCommits();
  }

  /** Flushes and stops the writer thread (its connection closes before this returns). */
  close(): void {
    this.flush();
    this.thread?.close();
    this.thread = null;
    this.here?.close();
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
    this.here ??= new BatchWriter(this.sqlite, (report) => this.report(report), { heldRowsLimit: this.heldRowsLimit, unrefTimer: true });
    this.here.statements.add(this.statementTexts.slice(this.here.statements.count));
    this.here.write(rows);
  }

  private report(report: BatchReport): void {
    logReport(this.logger, report);
    this.onReport(report);
  }
}

function logReport(logger: Logger, report: BatchReport): void {
  if (report.kind === "lost") logger.error("write-behind rows lost", { error: report.error, rows: report.rows });
  else if (report.kind === "held") logger.warn("the database refused write-behind rows; holding them to write again", { error: report.error, rows: report.rows });
  else logger.info("write-behind rows held through a refusal are written", { rows: report.rows });
}

/** The main thread's side of the writer thread: batches out, commit sequence numbers back through shared memory. */
class WriterThread {
  private readonly worker: Worker;
  /** [0]: the last batch committed (or given up); [1]: 1 once the thread's connection is closed; [2]: rows held through a refusal. */
  private readonly signal = new Int32Array(new SharedArrayBuffer(12));
  private sent = 0;
  private statementsSent = 0;
  alive = true;

  constructor(database: string, report: (report: ThreadReply) => void, private logger: Logger, options: { busyTimeoutMs: number; heldRowsLimit: number }) {
    // Listed as an entrypoint of the executable in scripts/build.ts, so this URL resolves inside it too.
    this.worker = new Worker(new URL("./write-behind-thread.ts", import.meta.url));
    this.worker.unref?.();
    this.worker.onmessage = ({ data }: MessageEvent<ThreadReply>) => report(data);
    this.worker.onerror = (event) => {
      this.alive = false;
      this.logger.error("write-behind thread failed; writing on the main connection from now on", { error: event.message });
    };
    this.post({ type: "open", path: database, signal: this.signal.buffer as SharedArrayBuffer, ...options });
  }

  send(statementTexts: string[], rows: BatchRow[]): void {
    const newStatements = statementTexts.slice(this.statementsSent);
    this.statementsSent = statementTexts.length;
    // One string is far cheaper to hand over than a structured clone of hundreds of small arrays.
    this.post({ type: "batch", seq: ++this.sent, newStatements, rows: JSON.stringify(rows) });
  }

  get heldRows(): number {
    return Atomics.load(this.signal, 2);
  }

  /** Blocks until the thread has committed (or held) every batch sent so far. */
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
