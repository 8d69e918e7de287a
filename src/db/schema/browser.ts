import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { agents } from "./agents.ts";
import { workspaces } from "./workspaces.ts";

/** A chat and voice bubble for a customer's web site, bound to one agent. */
export const widgets = sqliteTable("widgets", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  agentId: text("agent_id").notNull(),
  name: text("name").notNull(),
  /** Exact origins (`https://shop.example`), or `https://*.example` for its subdomains. */
  allowedOrigins: text("allowed_origins", { mode: "json" }).notNull().$type<string[]>(),
  mode: text("mode", { enum: ["chat", "voice", "both"] }).notNull(),
  /** Colours, position, title, greeting, avatar: what the embed shows, nothing secret. */
  look: text("look", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("widgets_workspace_idx").on(t.workspaceId, t.createdAt, t.id), index("widgets_agent_idx").on(t.agentId)]);

/** A visitor's chat on a widget: its conversation lives in the agent's chat session of the same id. */
export const widgetSessions = sqliteTable("widget_sessions", {
  id: text("id").primaryKey(),
  widgetId: text("widget_id").notNull().references(() => widgets.id, { onDelete: "cascade" }),
  workspaceId: text("workspace_id").notNull(),
  /** The visitor's address, hashed with the instance secret (the sessions-per-IP limit counts these). */
  visitor: text("visitor").notNull(),
  messages: integer("messages").notNull(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
}, (t) => [index("widget_sessions_visitor_idx").on(t.widgetId, t.visitor, t.createdAt), index("widget_sessions_expiry_idx").on(t.expiresAt)]);

/** One browser voice session, paid for in advance: single use, short-lived, only its hash kept. */
export const realtimeTokens = sqliteTable("realtime_tokens", {
  hash: text("hash").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  agentId: text("agent_id").notNull().references(() => agents.id, { onDelete: "cascade" }),
  /** Set when a widget visitor asked for it (the call's metadata names the widget). */
  widgetId: text("widget_id"),
  variables: text("variables", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  metadata: text("metadata", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  createdAt: integer("created_at").notNull(),
  expiresAt: integer("expires_at").notNull(),
  usedAt: integer("used_at"),
  callId: text("call_id"),
}, (t) => [index("realtime_tokens_expiry_idx").on(t.expiresAt)]);
