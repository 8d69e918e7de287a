import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

export const auditLog = sqliteTable("audit_log", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  actorType: text("actor_type", { enum: ["user", "api_key", "system"] }).notNull(),
  actorId: text("actor_id"),
  apiKeyId: text("api_key_id"),
  action: text("action").notNull(),
  method: text("method").notNull(),
  path: text("path").notNull(),
  status: integer("status").notNull(),
  ip: text("ip"),
  userAgent: text("user_agent"),
  requestId: text("request_id").notNull(),
  createdAt: integer("created_at").notNull(),
}, (t) => [
  index("audit_log_workspace_idx").on(t.workspaceId, t.createdAt, t.id),
  index("audit_log_key_idx").on(t.workspaceId, t.apiKeyId, t.createdAt),
]);
