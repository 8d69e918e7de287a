import { and, eq } from "drizzle-orm";
import type { Db } from "../db/connection.ts";
import { providerConnections } from "../db/schema/index.ts";

export type ProviderRow = typeof providerConnections.$inferSelect;
export type ProviderKind = ProviderRow["kind"];

/** A workspace's provider connection by id: every engine and client resolves its connection here. */
export function findProvider(db: Db, workspaceId: string, id: string): ProviderRow | undefined {
  return db.select().from(providerConnections).where(and(eq(providerConnections.workspaceId, workspaceId), eq(providerConnections.id, id))).get();
}

/** Every connection of a workspace (there are few: one per vendor or server). */
export function allProviders(db: Db, workspaceId: string): ProviderRow[] {
  return db.select().from(providerConnections).where(eq(providerConnections.workspaceId, workspaceId)).orderBy(providerConnections.createdAt).all();
}
