import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

export const apiKeys = sqliteTable("api_keys", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  scope: text("scope", { enum: ["read-only", "write", "admin"] }).notNull(),
  mode: text("mode", { enum: ["live", "test"] }).notNull(),
  /** `sk_<slug>_live_` and the last four characters: all that is ever shown again. */
  prefix: text("prefix").notNull(),
  lastFour: text("last_four").notNull(),
  secretHash: text("secret_hash").notNull(),
  createdBy: text("created_by"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  lastUsedAt: integer("last_used_at"),
  revokedAt: integer("revoked_at"),
}, (t) => [uniqueIndex("api_keys_secret_hash_unique").on(t.secretHash), index("api_keys_workspace_idx").on(t.workspaceId, t.createdAt, t.id)]);
