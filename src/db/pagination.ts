import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { CursorPosition } from "../lib/cursor.ts";

/** One page of a newest-first list: how many rows, and after which row (null: from the top). */
export interface PageRequest {
  limit: number;
  after: CursorPosition | null;
}

/** Rows newer-first: everything strictly after the cursor in (created_at DESC, id DESC) order. */
export function afterCursor(createdAt: SQLiteColumn, id: SQLiteColumn, after: CursorPosition | null): SQL | undefined {
  return after ? strictlyAfter(createdAt, id, after.at, after.id) : undefined;
}

/** The same condition for a prepared statement: the position is bound as the placeholders `at` and `id`. */
export function afterCursorPlaceholders(createdAt: SQLiteColumn, id: SQLiteColumn): SQL {
  return strictlyAfter(createdAt, id, sql.placeholder("at"), sql.placeholder("id"));
}

// A row value, not `a < ? OR (a = ? AND b < ?)`: SQLite seeks an index on (…, created_at, id) with it,
// where the OR form made it walk every row of the workspace before the cursor (deep pages grew slow).
function strictlyAfter(createdAt: SQLiteColumn, id: SQLiteColumn, at: unknown, rowId: unknown): SQL {
  return sql`(${createdAt}, ${id}) < (${at}, ${rowId})`;
}
