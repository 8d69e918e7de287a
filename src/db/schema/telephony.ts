import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { workspaces } from "./workspaces.ts";

/**
 * A workspace's account with a carrier (a SIP trunk, Twilio, Telnyx, …). The built-in simulated
 * carrier needs no row: it is present in every workspace under the id `simulated`.
 */
export const carrierConnections = sqliteTable("carrier_connections", {
  id: text("id").primaryKey(),
  workspaceId: text("workspace_id").notNull().references(() => workspaces.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  kind: text("kind").notNull(),
  /** What the carrier needs that is not secret (an account id, a trunk's host). */
  settings: text("settings", { mode: "json" }).notNull().$type<Record<string, unknown>>(),
  /** A JSON object of secrets, sealed with the instance key; responses show their last four characters. */
  credentials: text("credentials").notNull(),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
}, (t) => [index("carrier_connections_workspace_idx").on(t.workspaceId, t.createdAt, t.id)]);
