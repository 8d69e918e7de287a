import { expect } from "bun:test";
import type { ApiClient } from "./client.ts";

/**
 * Walks a list with `limit` and `cursor` to its end, checking each page's shape (at most `limit`
 * rows, next_cursor null exactly on the last page); returns the ids in the order served.
 */
export async function walkPages(api: ApiClient, path: string, token: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  do {
    const separator = path.includes("?") ? "&" : "?";
    const res: any = await api.get(`${path}${separator}limit=${limit}${cursor ? `&cursor=${cursor}` : ""}`, { token });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    ids.push(...res.body.data.map((row: { id: string }) => row.id));
    cursor = res.body.has_more ? res.body.next_cursor : null;
    if (!res.body.has_more) expect(res.body.next_cursor).toBeNull();
  } while (cursor);
  return ids;
}
