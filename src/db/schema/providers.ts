import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

/** A workspace's connection to a model service; the built-in offline engines need no row. */
export const providerConnections = sqliteTable("provider_connections", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  kind: text("kind", { enum: ["openai-compatible", "deepgram", "elevenlabs"] }).notNull(),
  baseUrl: text("base_url"),
  /** Sealed with the instance key; never returned. */
  apiKey: text("api_key"),
  settings: text("settings", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("provider_connections_workspace_idx").on(t.workspaceId, t.createdAt, t.id)]);
