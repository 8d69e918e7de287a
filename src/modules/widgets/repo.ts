import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";
import { widgets, widgetSessions } from "../../db/schema/index.ts";

export type WidgetRow = typeof widgets.$inferSelect;
export type WidgetSessionRow = typeof widgetSessions.$inferSelect;

export function findWidget(db: Db, workspaceId: string, id: string): WidgetRow | undefined {
  return db.select().from(widgets).where(and(eq(widgets.workspaceId, workspaceId), eq(widgets.id, id))).get();
}

/** A widget by id alone, for the public routes (the id is the only thing a visitor's page knows). */
export function findPublicWidget(db: Db, id: string): WidgetRow | undefined {
  return db.select().from(widgets).where(eq(widgets.id, id)).get();
}

const widgetPages = pagedList(widgets.createdAt, widgets.id, (db, after) =>
  db
    .select()
    .from(widgets)
    .where(and(eq(widgets.workspaceId, sql.placeholder("workspaceId")), after))
    .orderBy(desc(widgets.createdAt), desc(widgets.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listWidgets(db: Db, workspaceId: string, page: PageRequest): WidgetRow[] {
  return widgetPages(db, { workspaceId }, page);
}

export function widgetsOfAgent(db: Db, workspaceId: string, agentId: string): Pick<WidgetRow, "id" | "name">[] {
  return db
    .select({ id: widgets.id, name: widgets.name })
    .from(widgets)
    .where(and(eq(widgets.agentId, agentId), eq(widgets.workspaceId, workspaceId)))
    .orderBy(asc(widgets.createdAt))
    .all();
}

/** When each of a visitor's sessions on a widget started, oldest first, since `since`. */
export function sessionStartsSince(db: Db, widgetId: string, visitor: string, since: number): number[] {
  return db
    .select({ createdAt: widgetSessions.createdAt })
    .from(widgetSessions)
    .where(and(eq(widgetSessions.widgetId, widgetId), eq(widgetSessions.visitor, visitor), gt(widgetSessions.createdAt, since)))
    .orderBy(asc(widgetSessions.createdAt))
    .all()
    .map((row) => row.createdAt);
}

/** Counts one more message on a live session under `limit`, in one statement (two tabs cannot both take the last). */
export function takeSessionMessage(db: Db, widgetId: string, sessionId: string, now: number, limit: number): WidgetSessionRow | undefined {
  return db
    .update(widgetSessions)
    .set({ messages: sql`${widgetSessions.messages} + 1` })
    .where(and(eq(widgetSessions.id, sessionId), eq(widgetSessions.widgetId, widgetId), gt(widgetSessions.expiresAt, now), lt(widgetSessions.messages, limit)))
    .returning()
    .get();
}

export function giveBackSessionMessage(db: Db, sessionId: string): void {
  db.update(widgetSessions).set({ messages: sql`max(${widgetSessions.messages} - 1, 0)` }).where(eq(widgetSessions.id, sessionId)).run();
}

export function findSession(db: Db, widgetId: string, sessionId: string): WidgetSessionRow | undefined {
  return db.select().from(widgetSessions).where(and(eq(widgetSessions.id, sessionId), eq(widgetSessions.widgetId, widgetId))).get();
}

export function deleteExpiredSessions(db: Db, now: number): number {
  return db.delete(widgetSessions).where(lt(widgetSessions.expiresAt, now)).run().changes;
}
