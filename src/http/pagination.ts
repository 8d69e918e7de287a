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
  const { shown, hasMore, nextCursor } = pageOf(rows, page, position);
  return { data: shown.map(render), has_more: hasMore, next_cursor: nextCursor };
}

/** toPage as JSON text, from items each already written as JSON text (same keys, same order). */
export function toPageText<Row>(rows: Row[], page: PageRequest, position: (row: Row) => CursorPosition, render: (row: Row) => string): string {
  const { shown, hasMore, nextCursor } = pageOf(rows, page, position);
  return `{"data":[${shown.map(render).join(",")}],"has_more":${hasMore},"next_cursor":${JSON.stringify(nextCursor)}}`;
}

function pageOf<Row>(rows: Row[], page: PageRequest, position: (row: Row) => CursorPosition) {
  const hasMore = rows.length > page.limit;
  const shown = hasMore ? rows.slice(0, page.limit) : rows;
  return { shown, hasMore, nextCursor: hasMore ? encodeCursor(position(shown[shown.length - 1])) : null };
}

/**
 * A list headed by one built-in item that is never stored (the offline engines, the simulated
 * carrier): it opens the first page and counts toward its limit; later pages are rows only.
 * `load` returns up to limit + 1 rows after the position it is given.
 */
export function pageWithBuiltIn<Row extends { createdAt: number; id: string }, Item, BuiltIn>(
  page: PageRequest,
  builtIn: BuiltIn,
  load: (page: PageRequest) => Row[],
  render: (row: Row) => Item,
): { data: (Item | BuiltIn)[]; has_more: boolean; next_cursor: string | null } {
  const position = (row: Row) => ({ at: row.createdAt, id: row.id });
  if (page.after) return toPage(load(page), page, position, render);
  const rows = load({ limit: page.limit, after: null });
  const shown = rows.slice(0, page.limit - 1);
  const hasMore = rows.length > shown.length;
  const last = shown.at(-1);
  return {
    data: [builtIn, ...shown.map(render)],
    has_more: hasMore,
    // With only the built-in item shown, the next page starts at the newest row.
    next_cursor: hasMore ? encodeCursor(last ? position(last) : { at: Number.MAX_SAFE_INTEGER, id: "~" }) : null,
  };
}
