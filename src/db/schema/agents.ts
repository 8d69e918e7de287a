import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

/** An agent: its name on a column (lists sort and filter by it), everything else in `config`. */
export const agents = sqliteTable("agents", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  config: text("config", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  version: integer("version").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("agents_workspace_idx").on(t.workspaceId, t.createdAt, t.id)]);

/** Every configuration an agent has had; restoring one writes it again as a new version. */
export const agentVersions = sqliteTable("agent_versions", {
  agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
  version: integer("version").notNull(),
  workspaceId: text("workspace_id").notNull(),
  name: text("name").notNull(),
  config: text("config", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  createdBy: text("created_by"),
  note: text("note"),
  /** A draft is saved but not live: calls keep the agent's current version until it is published. */
  draft: integer("draft", { mode: "boolean" }).notNull().default(false),
  createdAt: integer("created_at").notNull(),
}, (t) => [uniqueIndex("agent_versions_pk").on(t.agentId, t.version)]);

/** Playground conversations (`POST /agents/{id}/chat`): the brain's state between messages. */
export const agentChatSessions = sqliteTable("agent_chat_sessions", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
  state: text("state", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
}, (t) => [index("agent_chat_sessions_expiry_idx").on(t.expiresAt)]);

/** Reusable functions agents call over HTTP (webhook tools). */
export const tools = sqliteTable("tools", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  config: text("config", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  /** Signing secret, sealed with the instance key. */
  secret: text("secret").notNull(),
  /** Extra request headers (may hold credentials), sealed JSON. */
  headers: text("headers"),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [uniqueIndex("tools_workspace_name_unique").on(t.workspaceId, t.name), index("tools_workspace_idx").on(t.workspaceId, t.createdAt, t.id)]);
