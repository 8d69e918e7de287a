import { and, desc, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { knowledgeBases, knowledgeSources } from "../../db/schema/index.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";

export type KnowledgeBaseRow = typeof knowledgeBases.$inferSelect;
export type SourceRow = typeof knowledgeSources.$inferSelect;

export function findKnowledgeBase(db: Db, workspaceId: string, id: string): KnowledgeBaseRow | undefined {
  return db.select().from(knowledgeBases).where(and(eq(knowledgeBases.workspaceId, workspaceId), eq(knowledgeBases.id, id))).get();
}

export function existingKnowledgeBaseIds(db: Db, workspaceId: string, ids: string[]): Set<string> {
  if (ids.length === 0) return new Set();
  const rows = db.select({ id: knowledgeBases.id }).from(knowledgeBases).where(and(eq(knowledgeBases.workspaceId, workspaceId), inArray(knowledgeBases.id, ids))).all();
  return new Set(rows.map((r) => r.id));
}

export function listKnowledgeBases(db: Db, workspaceId: string, page: PageRequest): KnowledgeBaseRow[] {
  return db
    .select()
    .from(knowledgeBases)
    .where(and(eq(knowledgeBases.workspaceId, workspaceId), afterCursor(knowledgeBases.createdAt, knowledgeBases.id, page.after)))
    .orderBy(desc(knowledgeBases.createdAt), desc(knowledgeBases.id))
    .limit(page.limit + 1)
    .all();
}

export function findSource(db: Db, workspaceId: string, knowledgeBaseId: string, id: string): SourceRow | undefined {
  return db
    .select()
    .from(knowledgeSources)
    .where(and(eq(knowledgeSources.workspaceId, workspaceId), eq(knowledgeSources.knowledgeBaseId, knowledgeBaseId), eq(knowledgeSources.id, id)))
    .get();
}

export function listSources(db: Db, workspaceId: string, knowledgeBaseId: string, page: PageRequest): SourceRow[] {
  return db
    .select()
    .from(knowledgeSources)
    .where(and(eq(knowledgeSources.workspaceId, workspaceId), eq(knowledgeSources.knowledgeBaseId, knowledgeBaseId), afterCursor(knowledgeSources.createdAt, knowledgeSources.id, page.after)))
    .orderBy(desc(knowledgeSources.createdAt), desc(knowledgeSources.id))
    .limit(page.limit + 1)
    .all();
}
