import { and, eq, lt, or, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { CursorPosition } from "../lib/cursor.ts";

/** One page of a newest-first list: how many rows, and after which row (null: from the top). */
export interface PageRequest {
  limit: number;
  after: CursorPosition | null;
}

/** Rows newer-first: everything strictly after the cursor in (created_at DESC, id DESC) order. */
export function afterCursor(createdAt: SQLiteColumn, id: SQLiteColumn, after: CursorPosition | null): SQL | undefined {
  if (!after) return undefined;
  return or(lt(createdAt, after.at), and(eq(createdAt, after.at), lt(id, after.id)));
}
