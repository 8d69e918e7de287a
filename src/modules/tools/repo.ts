import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { tools } from "../../db/schema/index.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";

export type ToolRow = typeof tools.$inferSelect;

export function findTool(db: Db, workspaceId: string, id: string): ToolRow | undefined {
  return db.select().from(tools).where(and(eq(tools.workspaceId, workspaceId), eq(tools.id, id))).get();
}

export function findTools(db: Db, workspaceId: string, ids: string[]): ToolRow[] {
  if (ids.length === 0) return [];
  return db.select().from(tools).where(and(eq(tools.workspaceId, workspaceId), inArray(tools.id, ids))).all();
}

export function listTools(db: Db, workspaceId: string, page: PageRequest): ToolRow[] {
  return db
    .select()
    .from(tools)
    .where(and(eq(tools.workspaceId, workspaceId), afterCursor(tools.createdAt, tools.id, page.after)))
    .orderBy(desc(tools.createdAt), desc(tools.id))
    .limit(page.limit + 1)
    .all();
}
