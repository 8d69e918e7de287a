// Commits write-behind batches on one connection (the writer thread's, or the main one's) so that no row
// is lost to a database that refuses writes for a while, and a bad row costs only itself.
import type BetterSqlite3 from "better-sqlite3";
import { databaseRefusal, type Refusal } from "../db/refusals.ts";
import { BatchStatements, type BatchRow } from "./batch-rows.ts";

/** Rows held through a refusal, at most; beyond, the oldest held batch is given up (and reported lost). */
export const HELD_ROWS_LIMIT = 200_000;
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;

/** What a writer tells its owner; the owner logs it (the thread's writer sends it over as a message). */
export type BatchReport =
  /** Rows that will never be written: a defect in those rows, or held rows given up. */
  | { kind: "lost"; rows: number; error: string }
  /** The database refused a batch (busy, full, I/O): its rows, and every batch after them, wait to be written again. */
  | { kind: "held"; rows: number; error: string; refusal: Refusal }
  /** Every held row is written now. */
  | { kind: "written"; rows: number };

export interface BatchWriterOptions {
  heldRowsLimit?: number;
  /** Unref the retry timer: a one-shot command must not stay alive for it (its close() tries one last time). */
  unrefTimer?: boolean;
  /** Told the rows held whenever that number changes (the backlog an operator's metrics show). */
  onHeld?: (rows: number) => void;
}

/**
 * One transaction per batch, in the order batches come. A batch the database refuses is held with every
 * batch after it (none overtakes another) and written again after 0.2 s, doubling up to 5 s, until the
 * database takes it. A batch that fails for a defect in some row is written again row by row, each row
 * in a savepoint of its own, so only the bad rows are lost.
 */
export class BatchWriter {
  private held: BatchRow[][] = [];
  private heldRows = 0;
  private retryMs = RETRY_FIRST_MS;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly heldRowsLimit: number;
  /** The batches' statements on this connection; one that cannot be prepared is reported, its rows skipped. */
  readonly statements: BatchStatements;

  constructor(
    private db: BetterSqlite3.Database,
    private report: (report: BatchReport) => void,
    private options: BatchWriterOptions = {},
  ) {
    this.heldRowsLimit = options.heldRowsLimit ?? HELD_ROWS_LIMIT;
    this.statements = new BatchStatements(db, (error) => report({ kind: "lost", rows: 0, error }));
  }

  /** Commits a batch, or holds it behind the batches already held. */
  write(rows: BatchRow[]): void {
    if (rows.length === 0) return;
    if (this.held.length > 0) return this.hold(rows);
    const refused = this.commit(rows);
    if (refused === null) return;
    this.hold(rows);
    this.report({ kind: "held", rows: rows.length, error: message(refused), refusal: databaseRefusal(refused)! });
    this.scheduleRetry();
  }

  get heldCount(): number {
    return this.heldRows;
  }

  /** Writes the held batches, oldest first, until the database refuses one; true when none is left. */
  retry(): boolean {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    let written = 0;
    while (this.held.length > 0) {
      if (this.commit(this.held[0]) !== null) {
        this.heldRows -= written;
        this.options.onHeld?.(this.heldRows);
        this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
        this.scheduleRetry();
        return false;
      }
      written += this.held.shift()!.length;
    }
    this.heldRows = 0;
    this.options.onHeld?.(0);
    this.retryMs = RETRY_FIRST_MS;
    this.report({ kind: "written", rows: written });
    return true;
  }

  /** The last attempt before the connection goes: rows the database still refuses are reported lost. */
  close(): void {
    if (this.held.length === 0 || this.retry()) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.report({ kind: "lost", rows: this.heldRows, error: "the database still refused them when the writer closed" });
    this.held = [];
    this.heldRows = 0;
    this.options.onHeld?.(0);
  }

  private hold(rows: BatchRow[]): void {
    this.held.push(rows);
    this.heldRows += rows.length;
    let given = 0;
    while (this.heldRows > this.heldRowsLimit && this.held.length > 1) {
      const oldest = this.held.shift()!;
      this.heldRows -= oldest.length;
      given += oldest.length;
    }
    this.options.onHeld?.(this.heldRows);
    if (given > 0) this.report({ kind: "lost", rows: given, error: `more than ${this.heldRowsLimit} rows held while the database refused them` });
  }

  private scheduleRetry(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => this.retry(), this.retryMs);
    if (this.options.unrefTimer) this.timer.unref?.();
  }

  /** Commits one batch; answers null once it is written, or the database's refusal. */
  private commit(rows: BatchRow[]): unknown {
    try {
      this.db.transaction(() => this.statements.write(rows)).immediate();
      return null;
    } catch (error) {
      return databaseRefusal(error) ? error : this.commitEach(rows, error);
    }
  }

  /** A batch that failed for a defect, again one row per savepoint: only the rows that fail are lost. */
  private commitEach(rows: BatchRow[], first: unknown): unknown {
    let lost = 0;
    try {
      this.db.transaction(() => {
        for (const row of rows) {
          try {
            this.db.transaction(() => this.statements.write([row]))();
          } catch (error) {
            if (databaseRefusal(error)) throw error;
            lost++;
          }
        }
      }).immediate();
    } catch (error) {
      if (databaseRefusal(error)) return error;
      lost = rows.length;
    }
    if (lost > 0) this.report({ kind: "lost", rows: lost, error: message(first) });
    return null;
  }
}

function message(error: unknown): string {
  return String((error as Error)?.message ?? error);
}
