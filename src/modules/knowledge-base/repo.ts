import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { knowledgeBases, knowledgeSources } from "../../db/schema/index.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";

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

const knowledgeBasePages = pagedList(knowledgeBases.createdAt, knowledgeBases.id, (db, after) =>
  db
    .select()
    .from(knowledgeBases)
    .where(and(eq(knowledgeBases.workspaceId, sql.placeholder("workspaceId")), after))
    .orderBy(desc(knowledgeBases.createdAt), desc(knowledgeBases.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listKnowledgeBases(db: Db, workspaceId: string, page: PageRequest): KnowledgeBaseRow[] {
  return knowledgeBasePages(db, { workspaceId }, page);
}

export function findSource(db: Db, workspaceId: string, knowledgeBaseId: string, id: string): SourceRow | undefined {
  return db
    .select()
    .from(knowledgeSources)
    .where(and(eq(knowledgeSources.workspaceId, workspaceId), eq(knowledgeSources.knowledgeBaseId, knowledgeBaseId), eq(knowledgeSources.id, id)))
    .get();
}

const sourcePages = pagedList(knowledgeSources.createdAt, knowledgeSources.id, (db, after) =>
  db
    .select()
    .from(knowledgeSources)
    .where(and(eq(knowledgeSources.workspaceId, sql.placeholder("workspaceId")), eq(knowledgeSources.knowledgeBaseId, sql.placeholder("knowledgeBaseId")), after))
    .orderBy(desc(knowledgeSources.createdAt), desc(knowledgeSources.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listSources(db: Db, workspaceId: string, knowledgeBaseId: string, page: PageRequest): SourceRow[] {
  return sourcePages(db, { workspaceId, knowledgeBaseId }, page);
}
