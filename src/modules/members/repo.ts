import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { invitations, members, users } from "../../db/schema/index.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";
import type { Role } from "../../http/permissions.ts";

export type InvitationRow = typeof invitations.$inferSelect;

const memberColumns = {
  id: members.id,
  workspaceId: members.workspaceId,
  userId: members.userId,
  role: members.role,
  createdAt: members.createdAt,
  updatedAt: members.updatedAt,
  email: users.email,
  name: users.name,
};

export type MemberView = { id: string; workspaceId: string; userId: string; role: Role; createdAt: number; updatedAt: number; email: string; name: string | null };

const memberPages = pagedList(members.createdAt, members.id, (db, after) =>
  db
    .select(memberColumns)
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(and(eq(members.workspaceId, sql.placeholder("workspaceId")), after))
    .orderBy(desc(members.createdAt), desc(members.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listMembers(db: Db, workspaceId: string, page: PageRequest): MemberView[] {
  return memberPages(db, { workspaceId }, page);
}

export function findMember(db: Db, workspaceId: string, memberId: string): MemberView | undefined {
  return db
    .select(memberColumns)
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(and(eq(members.workspaceId, workspaceId), eq(members.id, memberId)))
    .get();
}

export function findMemberByEmail(db: Db, workspaceId: string, email: string): MemberView | undefined {
  return db
    .select(memberColumns)
    .from(members)
    .innerJoin(users, eq(users.id, members.userId))
    .where(and(eq(members.workspaceId, workspaceId), eq(users.email, email.toLowerCase())))
    .get();
}

export function countOwners(db: Db, workspaceId: string): number {
  return db.select({ n: sql<number>`count(*)` }).from(members).where(and(eq(members.workspaceId, workspaceId), eq(members.role, "owner"))).get()!.n;
}

export function setMemberRole(db: Db, workspaceId: string, memberId: string, role: Role, now: number): void {
  db.update(members).set({ role, updatedAt: now }).where(and(eq(members.workspaceId, workspaceId), eq(members.id, memberId))).run();
}

export function deleteMember(db: Db, workspaceId: string, memberId: string): void {
  db.delete(members).where(and(eq(members.workspaceId, workspaceId), eq(members.id, memberId))).run();
}

export function insertInvitation(db: Db, row: InvitationRow): void {
  db.insert(invitations).values(row).run();
}

export function findInvitationByTokenHash(db: Db, tokenHash: string): InvitationRow | undefined {
  return db.select().from(invitations).where(eq(invitations.tokenHash, tokenHash)).get();
}

export function markInvitationAccepted(db: Db, id: string, userId: string, now: number): boolean {
  return db
    .update(invitations)
    .set({ acceptedAt: now, acceptedBy: userId })
    .where(and(eq(invitations.id, id), sql`${invitations.acceptedAt} IS NULL`))
    .run().changes === 1;
}
