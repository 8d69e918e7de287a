import { and, asc, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { prepared } from "../../db/prepared.ts";
import { members, workspaces } from "../../db/schema/index.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";
import type { Role } from "../../http/permissions.ts";

export type WorkspaceRow = typeof workspaces.$inferSelect;

export function insertWorkspace(db: Db, row: typeof workspaces.$inferInsert): void {
  db.insert(workspaces).values(row).run();
}

export function insertMember(db: Db, row: { id: string; workspaceId: string; userId: string; role: Role; createdAt: number }): void {
  db.insert(members).values({ ...row, updatedAt: row.createdAt }).run();
}

const workspaceById = prepared((db) => db.select().from(workspaces).where(eq(workspaces.id, sql.placeholder("id"))).prepare());

export function findWorkspace(db: Db, id: string): WorkspaceRow | undefined {
  return workspaceById(db).get({ id });
}

export function findOperatorWorkspace(db: Db): WorkspaceRow | undefined {
  return db.select().from(workspaces).where(eq(workspaces.isOperator, true)).orderBy(asc(workspaces.createdAt)).get();
}

export function updateWorkspace(db: Db, id: string, changes: Partial<WorkspaceRow>): void {
  db.update(workspaces).set(changes).where(eq(workspaces.id, id)).run();
}

/** The user's oldest membership: where a fresh login lands by default. */
export function firstWorkspaceOf(db: Db, userId: string): string | null {
  const row = db.select({ id: members.workspaceId }).from(members).where(eq(members.userId, userId)).orderBy(asc(members.createdAt)).get();
  return row?.id ?? null;
}

export function membershipOf(db: Db, userId: string, workspaceId: string) {
  return db.select().from(members).where(and(eq(members.userId, userId), eq(members.workspaceId, workspaceId))).get();
}

const membershipPages = pagedList(members.createdAt, members.id, (db, after) =>
  db
    .select({ workspace: workspaces, role: members.role, joinedAt: members.createdAt, memberId: members.id })
    .from(members)
    .innerJoin(workspaces, eq(workspaces.id, members.workspaceId))
    .where(and(eq(members.userId, sql.placeholder("userId")), after))
    .orderBy(desc(members.createdAt), desc(members.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listUserWorkspaces(db: Db, userId: string, page: PageRequest) {
  return membershipPages(db, { userId }, page);
}
