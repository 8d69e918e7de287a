import { and, desc, eq, isNull, ne, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { prepared } from "../../db/prepared.ts";
import { passwordResets, refreshTokens, sessions, users } from "../../db/schema/index.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";

export type UserRow = typeof users.$inferSelect;
export type SessionRow = typeof sessions.$inferSelect;

export function findUserByEmail(db: Db, email: string): UserRow | undefined {
  return db.select().from(users).where(eq(users.email, email.toLowerCase())).get();
}

const userById = prepared((db) => db.select().from(users).where(eq(users.id, sql.placeholder("id"))).prepare());

export function findUser(db: Db, id: string): UserRow | undefined {
  return userById(db).get({ id });
}

export function insertUser(db: Db, row: typeof users.$inferInsert): void {
  db.insert(users).values({ ...row, email: row.email.toLowerCase() }).run();
}

export function updateUser(db: Db, id: string, changes: Partial<Pick<UserRow, "name" | "passwordHash" | "updatedAt">>): void {
  db.update(users).set(changes).where(eq(users.id, id)).run();
}

export function insertSession(db: Db, row: typeof sessions.$inferInsert, refreshHash: string): void {
  db.insert(sessions).values(row).run();
  db.insert(refreshTokens).values({ tokenHash: refreshHash, sessionId: row.id, createdAt: row.createdAt }).run();
}

export function findRefreshToken(db: Db, tokenHash: string) {
  return db
    .select({ usedAt: refreshTokens.usedAt, session: sessions })
    .from(refreshTokens)
    .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
    .where(eq(refreshTokens.tokenHash, tokenHash))
    .get();
}

/** Marks the presented token used and stores its successor; false if another request used it first. */
export function rotateRefreshToken(db: Db, oldHash: string, newHash: string, sessionId: string, now: number, expiresAt: number): boolean {
  const claimed = db
    .update(refreshTokens)
    .set({ usedAt: now })
    .where(and(eq(refreshTokens.tokenHash, oldHash), isNull(refreshTokens.usedAt)))
    .run().changes;
  if (claimed === 0) return false;
  db.insert(refreshTokens).values({ tokenHash: newHash, sessionId, createdAt: now }).run();
  db.update(sessions).set({ lastUsedAt: now, expiresAt }).where(eq(sessions.id, sessionId)).run();
  return true;
}

export function revokeSession(db: Db, sessionId: string, now: number, reason: string): void {
  db.update(sessions).set({ revokedAt: now, revokeReason: reason }).where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt))).run();
}

/** Revokes every live session of a user, optionally sparing one (the caller's own). */
export function revokeUserSessions(db: Db, userId: string, now: number, reason: string, except?: string): void {
  const conditions = [eq(sessions.userId, userId), isNull(sessions.revokedAt)];
  if (except) conditions.push(ne(sessions.id, except));
  db.update(sessions).set({ revokedAt: now, revokeReason: reason }).where(and(...conditions)).run();
}

export function listActiveSessions(db: Db, userId: string, now: number, page: PageRequest): SessionRow[] {
  return db
    .select()
    .from(sessions)
    .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt), gt(sessions.expiresAt, now), afterCursor(sessions.createdAt, sessions.id, page.after)))
    .orderBy(desc(sessions.createdAt), desc(sessions.id))
    .limit(page.limit + 1)
    .all();
}

export function findUserSession(db: Db, userId: string, sessionId: string): SessionRow | undefined {
  return db.select().from(sessions).where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId))).get();
}

export function insertPasswordReset(db: Db, row: typeof passwordResets.$inferInsert): void {
  db.insert(passwordResets).values(row).run();
}

export function findPasswordReset(db: Db, tokenHash: string) {
  return db.select().from(passwordResets).where(eq(passwordResets.tokenHash, tokenHash)).get();
}

/** One-time: only the first use of a reset token succeeds. */
export function consumePasswordReset(db: Db, id: string, now: number): boolean {
  return db.update(passwordResets).set({ usedAt: now }).where(and(eq(passwordResets.id, id), isNull(passwordResets.usedAt))).run().changes === 1;
}
