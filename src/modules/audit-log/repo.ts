import { and, desc, eq, gte, lt, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { auditLog } from "../../db/schema/index.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";

export type AuditRow = typeof auditLog.$inferSelect;

export interface AuditFilter {
  apiKeyId?: string;
  actorId?: string;
  action?: string;
  from?: number;
  to?: number;
}

export function listAudit(db: Db, workspaceId: string, filter: AuditFilter, page: PageRequest): AuditRow[] {
  const conditions: (SQL | undefined)[] = [eq(auditLog.workspaceId, workspaceId), afterCursor(auditLog.createdAt, auditLog.id, page.after)];
  if (filter.apiKeyId) conditions.push(eq(auditLog.apiKeyId, filter.apiKeyId));
  if (filter.actorId) conditions.push(eq(auditLog.actorId, filter.actorId));
  if (filter.action) conditions.push(eq(auditLog.action, filter.action));
  if (filter.from !== undefined) conditions.push(gte(auditLog.createdAt, filter.from));
  if (filter.to !== undefined) conditions.push(lt(auditLog.createdAt, filter.to));
  return db
    .select()
    .from(auditLog)
    .where(and(...conditions))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(page.limit + 1)
    .all();
}

export function findAudit(db: Db, workspaceId: string, id: string): AuditRow | undefined {
  return db.select().from(auditLog).where(and(eq(auditLog.workspaceId, workspaceId), eq(auditLog.id, id))).get();
}
