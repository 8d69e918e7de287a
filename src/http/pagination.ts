import { t, type TSchema } from "elysia";
import type { PageRequest } from "../db/pagination.ts";
import { decodeCursor, encodeCursor, type CursorPosition } from "../lib/cursor.ts";
import { invalid } from "./errors.ts";

/** Query parameters every list endpoint accepts (DESIGN.md "Lists"). */
export const listQuery = {
  limit: t.Optional(t.Integer({ minimum: 1, maximum: 100, default: 20, description: "Page size (1-100, default 20)" })),
  cursor: t.Optional(t.String({ description: "`next_cursor` of the previous page" })),
};

export function ListOf<T extends TSchema>(item: T, description?: string) {
  return t.Object(
    {
      data: t.Array(item),
      has_more: t.Boolean(),
      next_cursor: t.Union([t.String(), t.Null()]),
    },
    { description },
  );
}

export type { PageRequest };

export function pageRequest(query: { limit?: number; cursor?: string }): PageRequest {
  const after = query.cursor ? decodeCursor(query.cursor) : null;
  if (query.cursor && !after) throw invalid("cursor", "is not a cursor returned by this list");
  return { limit: query.limit ?? 20, after };
}

/** `rows` must hold up to limit + 1 rows: the extra one only tells whether another page exists. */
export function toPage<Row, Item>(
  rows: Row[],
  page: PageRequest,
  position: (row: Row) => CursorPosition,
  render: (row: Row) => Item,
): { data: Item[]; has_more: boolean; next_cursor: string | null } {
  const hasMore = rows.length > page.limit;
  const shown = hasMore ? rows.slice(0, page.limit) : rows;
  return {
    data: shown.map(render),
    has_more: hasMore,
    next_cursor: hasMore ? encodeCursor(position(shown[shown.length - 1])) : null,
  };
}
