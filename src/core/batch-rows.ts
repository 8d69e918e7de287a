// How a write-behind batch reaches SQLite, on the writer thread and on the main connection alike.
import type BetterSqlite3 from "better-sqlite3";

type Statement = BetterSqlite3.Statement;

/** What a bookkeeping row may hold: it travels to the writer thread as JSON. */
export type SqlValue = string | number | null;

/** A batch's rows in commit order: the statement's number, then its values. */
export type BatchRow = [statement: number, values: SqlValue[]];

/** Rows of one INSERT that arrive together are written this many per statement. */
export const ROWS_PER_INSERT = 32;

/** `INSERT INTO t (…) VALUES (?, …, ?)`: one row's placeholders, which a multi-row statement repeats. */
const SINGLE_ROW_INSERT = /^\s*INSERT\s+INTO\s[^;]*\bVALUES\s*(\(\s*\?(?:\s*,\s*\?)*\s*\))\s*$/i;

/**
 * The statements of a batch, prepared once per connection. A run of rows for the same single-row INSERT
 * goes in ROWS_PER_INSERT at a time through one multi-row INSERT: each statement call costs as much as
 * a row's B-tree work, so an audit row per request is ~20 % cheaper to commit this way.
 */
export class BatchStatements {
  private texts: string[] = [];
  private single: (Statement | null)[] = [];
  private multi: (Statement | null | undefined)[] = [];

  constructor(
    private db: BetterSqlite3.Database,
    /** Reports a statement that cannot be prepared; its rows are skipped, the others still written. */
    private unprepared: (sql: string, error: unknown) => void,
  ) {}

  /** Prepares statements numbered from the current count on, in the order the texts are given. */
  add(texts: string[]): void {
    for (const sql of texts) {
      this.texts.push(sql);
      this.single.push(this.prepare(sql));
      const row = SINGLE_ROW_INSERT.exec(sql);
      // Prepared on first use; null: not an INSERT of one row, so its rows always go one by one.
      this.multi.push(row ? undefined : null);
    }
  }

  get count(): number {
    return this.single.length;
  }

  /** Writes the rows in their order (call inside a transaction). */
  write(rows: readonly BatchRow[]): void {
    for (let i = 0; i < rows.length; ) {
      const statement = rows[i][0];
      let end = i + 1;
      while (end < rows.length && rows[end][0] === statement) end++;
      const single = this.single[statement];
      if (single) {
        let at = i;
        const multi = end - i >= ROWS_PER_INSERT ? this.multiRow(statement) : null;
        if (multi) {
          for (; at + ROWS_PER_INSERT <= end; at += ROWS_PER_INSERT) {
            const values: SqlValue[] = [];
            for (let k = at; k < at + ROWS_PER_INSERT; k++) for (const value of rows[k][1]) values.push(value);
            multi.run(values);
          }
        }
        for (; at < end; at++) single.run(rows[at][1]);
      }
      i = end;
    }
  }

  private multiRow(statement: number): Statement | null {
    let multi = this.multi[statement];
    if (multi === undefined) {
      const sql = this.texts[statement];
      const tuple = SINGLE_ROW_INSERT.exec(sql)![1];
      multi = this.prepare(sql + `, ${tuple}`.repeat(ROWS_PER_INSERT - 1));
      this.multi[statement] = multi;
    }
    return multi;
  }

  private prepare(sql: string): Statement | null {
    try {
      return this.db.prepare(sql);
    } catch (error) {
      this.unprepared(sql, error);
      return null;
    }
  }
}
