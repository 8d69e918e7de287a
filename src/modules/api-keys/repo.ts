import { and, desc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { prepared } from "../../db/prepared.ts";
import { apiKeys } from "../../db/schema/index.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";

export type ApiKeyRow = typeof apiKeys.$inferSelect;

export function insertApiKey(db: Db, row: ApiKeyRow): void {
  db.insert(apiKeys).values(row).run();
}

/** Live keys of one workspace; a revoked key is gone from the API (its audit rows stay). */
const liveKeyById = prepared((db) =>
  db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceId, sql.placeholder("workspaceId")), eq(apiKeys.id, sql.placeholder("id")), isNull(apiKeys.revokedAt)))
    .prepare(),
);

export function findApiKey(db: Db, workspaceId: string, id: string): ApiKeyRow | undefined {
  return liveKeyById(db).get({ workspaceId, id });
}

const keyPages = pagedList(apiKeys.createdAt, apiKeys.id, (db, after) =>
  db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.workspaceId, sql.placeholder("workspaceId")), isNull(apiKeys.revokedAt), after))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listApiKeys(db: Db, workspaceId: string, page: PageRequest): ApiKeyRow[] {
  return keyPages(db, { workspaceId }, page);
}

export function renameApiKey(db: Db, workspaceId: string, id: string, name: string, now: number): boolean {
  return db.update(apiKeys).set({ name, updatedAt: now }).where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).run().changes === 1;
}

export function revokeApiKey(db: Db, workspaceId: string, id: string, now: number): boolean {
  return db.update(apiKeys).set({ revokedAt: now, updatedAt: now }).where(and(eq(apiKeys.workspaceId, workspaceId), eq(apiKeys.id, id), isNull(apiKeys.revokedAt))).run().changes === 1;
}
