import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

export const users = sqliteTable("users", {
  id: text("id").primaryKey(),
  email: text("email").notNull(), // stored lower-cased
  name: text("name"),
  passwordHash: text("password_hash").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [uniqueIndex("users_email_unique").on(t.email)]);

/** A login: one refresh-token family. Revoking it ends every token it ever issued. */
export const sessions = sqliteTable("sessions", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  /** Default workspace of its access tokens; null when the user belongs to none. */
  workspaceId: text("workspace_id"),
  userAgent: text("user_agent"),
  ip: text("ip"),
  createdAt: integer("created_at").notNull(),
  lastUsedAt: integer("last_used_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  revokedAt: integer("revoked_at"),
  revokeReason: text("revoke_reason"),
}, (t) => [index("sessions_user_idx").on(t.userId, t.createdAt, t.id)]);

/** Every refresh token a session has issued; a used one presented again means theft. */
export const refreshTokens = sqliteTable("refresh_tokens", {
  tokenHash: text("token_hash").primaryKey(),
  sessionId: text("session_id").notNull().references(() => sessions.id, { onDelete: "cascade" }),
  createdAt: integer("created_at").notNull(),
  usedAt: integer("used_at"),
}, (t) => [index("refresh_tokens_session_idx").on(t.sessionId)]);

export const passwordResets = sqliteTable("password_resets", {
  id: text("id").primaryKey(),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  tokenHash: text("token_hash").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
}, (t) => [uniqueIndex("password_resets_token_unique").on(t.tokenHash)]);
