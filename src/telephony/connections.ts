// Carrier connections at rest: credentials sealed with the instance key, one workspace at a time.
import { and, desc, eq, inArray, sql } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import { pagedList, type PageRequest } from "../db/pagination.ts";
import { carrierConnections } from "../db/schema/index.ts";
import { unsealMemo } from "../lib/sealed.ts";
import type { CarrierConnection } from "./types.ts";

export type CarrierConnectionRow = typeof carrierConnections.$inferSelect;

/** The built-in simulated carrier: a connection every workspace has, never stored. */
export const SIMULATED_CONNECTION_ID = "simulated";

export function findConnectionRow(ctx: AppContext, workspaceId: string, id: string): CarrierConnectionRow | undefined {
  return ctx.db.select().from(carrierConnections).where(and(eq(carrierConnections.workspaceId, workspaceId), eq(carrierConnections.id, id))).get();
}

/** A connection by id alone: a carrier's callback names its connection, and its signature proves the rest. */
export function findConnectionRowById(ctx: AppContext, id: string): CarrierConnectionRow | undefined {
  return ctx.db.select().from(carrierConnections).where(eq(carrierConnections.id, id)).get();
}

/** Every workspace's connections of these kinds: the ones to start with the server. */
export function connectionRowsOfKinds(ctx: AppContext, kinds: string[]): CarrierConnectionRow[] {
  if (!kinds.length) return [];
  return ctx.db.select().from(carrierConnections).where(inArray(carrierConnections.kind, kinds)).all();
}

const connectionPages = pagedList(carrierConnections.createdAt, carrierConnections.id, (db, after) =>
  db
    .select()
    .from(carrierConnections)
    .where(and(eq(carrierConnections.workspaceId, sql.placeholder("workspaceId")), after))
    .orderBy(desc(carrierConnections.createdAt), desc(carrierConnections.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listConnectionRows(ctx: AppContext, workspaceId: string, page: PageRequest): CarrierConnectionRow[] {
  return connectionPages(ctx.db, { workspaceId }, page);
}

export function unsealConnection(ctx: AppContext, row: CarrierConnectionRow): CarrierConnection {
  return {
    id: row.id,
    workspaceId: row.workspaceId,
    name: row.name,
    kind: row.kind,
    settings: row.settings,
    credentials: JSON.parse(unsealMemo(ctx.keys.encryption, row.credentials)) as Record<string, string>,
    updatedAt: row.updatedAt,
  };
}

export function simulatedConnection(workspaceId: string): CarrierConnection {
  return { id: SIMULATED_CONNECTION_ID, workspaceId, name: "Simulated carrier", kind: "simulated", settings: {}, credentials: {}, updatedAt: 0 };
}
