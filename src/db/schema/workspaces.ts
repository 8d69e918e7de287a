import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "./users.ts";

export const workspaces = sqliteTable("workspaces", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  timezone: text("timezone").notNull(),
  defaultLanguage: text("default_language").notNull(),
  defaultCountry: text("default_country"),
  /** The workspace of the instance operator (the reseller running the box). */
  isOperator: integer("is_operator", { mode: "boolean" }).notNull().default(false),
  /** Set by the operator: the workspace's keys and calls stop at once (403 `workspace_suspended`). */
  suspendedAt: integer("suspended_at"),
  suspendedReason: text("suspended_reason"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

export const members = sqliteTable("members", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  userId: text("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  role: text("role", { enum: ["owner", "admin", "member", "viewer"] }).notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [
  uniqueIndex("members_workspace_user_unique").on(t.workspaceId, t.userId),
  index("members_workspace_idx").on(t.workspaceId, t.createdAt, t.id),
  index("members_user_idx").on(t.userId, t.createdAt, t.id),
]);

export const invitations = sqliteTable("invitations", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  email: text("email").notNull(),
  role: text("role", { enum: ["admin", "member", "viewer"] }).notNull(),
  tokenHash: text("token_hash").notNull(),
  invitedBy: text("invited_by"),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  acceptedAt: integer("accepted_at"),
  acceptedBy: text("accepted_by"),
}, (t) => [uniqueIndex("invitations_token_unique").on(t.tokenHash), index("invitations_workspace_idx").on(t.workspaceId)]);
