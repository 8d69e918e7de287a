// How a write-behind batch reaches SQLite, on the writer thread and on the main connection alike.
import type BetterSqlite3 from "better-sqlite3";

type Statement = BetterSqlite3.Statement;

/** What a bookkeeping row may hold: it travels to the writer thread as JSON. */
export type SqlValue = string | number | null;

/** A batch's rows in commit order: the statement's number, then its values. */
export type BatchRow = [statement: number, values: SqlValue[]];

/** Rows of one INSERT that arrive together are written this many per statement. */
export const ROWS_PER_INSERT = 32;

/** An INSERT of one row, `INSERT INTO t (a, b) VALUES (?, ?)`; group 1 is its row of values, which a many-row INSERT repeats. */
const SINGLE_ROW_INSERT = /^\s*INSERT\s+INTO\s[^;]*\bVALUES\s*(\(\s*\?(?:\s*,\s*\?)*\s*\))\s*$/i;

/** A statement of a batch: prepared once per connection, with its many-row form when it has one. */
interface Prepared {
  single: Statement | null;
  /** The many-row INSERT's text (null: not an INSERT of one row), and the statement once first used. */
  manyText: string | null;
  many?: Statement | null;
}

/**
 * The statements of a batch, prepared once per connection. A run of rows for the same single-row INSERT
 * goes in ROWS_PER_INSERT at a time through one many-row INSERT: each statement call costs as much as
 * a row's B-tree work, so an audit row per request is ~20 % cheaper to commit this way.
 */
export class BatchStatements {
  private statements: Prepared[] = [];

  constructor(
    private db: BetterSqlite3.Database,
    /** Reports a statement that cannot be prepared (the message names it); its rows are skipped, the others still written. */
    private unprepared: (message: string) => void,
  ) {}

  /** Prepares statements numbered from the current count on, in the order the texts are given. */
  add(texts: string[]): void {
    for (const sql of texts) {
      const row = SINGLE_ROW_INSERT.exec(sql);
      this.statements.push({ single: this.prepare(sql), manyText: row ? sql + `, ${row[1]}`.repeat(ROWS_PER_INSERT - 1) : null });
    }
  }

  get count(): number {
    return this.statements.length;
  }

  /** Writes the rows in their order (call inside a transaction). */
  write(rows: readonly BatchRow[]): void {
    for (let i = 0; i < rows.length; ) {
      const prepared = this.statements[rows[i][0]];
      let end = i + 1;
      while (end < rows.length && rows[end][0] === rows[i][0]) end++;
      if (prepared.single) {
        let at = i;
        const many = end - i >= ROWS_PER_INSERT ? this.many(prepared) : null;
        for (; many && at + ROWS_PER_INSERT <= end; at += ROWS_PER_INSERT) {
          const values: SqlValue[] = [];
          for (let k = at; k < at + ROWS_PER_INSERT; k++) for (const value of rows[k][1]) values.push(value);
          many.run(values);
        }
        for (; at < end; at++) prepared.single.run(rows[at][1]);
      }
      i = end;
    }
  }

  private many(prepared: Prepared): Statement | null {
    if (prepared.many === undefined) prepared.many = prepared.manyText === null ? null : this.prepare(prepared.manyText);
    return prepared.many;
  }

  private prepare(sql: string): Statement | null {
    try {
      return this.db.prepare(sql);
    } catch (error) {
      this.unprepared(`${String((error as Error)?.message ?? error)} (${sql})`);
      return null;
    }
  }
}
