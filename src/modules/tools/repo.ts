import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { tools } from "../../db/schema/index.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";

export type ToolRow = typeof tools.$inferSelect;

export function findTool(db: Db, workspaceId: string, id: string): ToolRow | undefined {
  return db.select().from(tools).where(and(eq(tools.workspaceId, workspaceId), eq(tools.id, id))).get();
}

export function findTools(db: Db, workspaceId: string, ids: string[]): ToolRow[] {
  if (ids.length === 0) return [];
  return db.select().from(tools).where(and(eq(tools.workspaceId, workspaceId), inArray(tools.id, ids))).all();
}

const toolPages = pagedList(tools.createdAt, tools.id, (db, after) =>
  db
    .select()
    .from(tools)
    .where(and(eq(tools.workspaceId, sql.placeholder("workspaceId")), after))
    .orderBy(desc(tools.createdAt), desc(tools.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listTools(db: Db, workspaceId: string, page: PageRequest): ToolRow[] {
  return toolPages(db, { workspaceId }, page);
}
