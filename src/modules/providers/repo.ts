import { and, desc, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { providerConnections } from "../../db/schema/index.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";
import type { ProviderRow } from "../../providers/store.ts";

const providerPages = pagedList(providerConnections.createdAt, providerConnections.id, (db, after) =>
  db
    .select()
    .from(providerConnections)
    .where(and(eq(providerConnections.workspaceId, sql.placeholder("workspaceId")), after))
    .orderBy(desc(providerConnections.createdAt), desc(providerConnections.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

export function listProviders(db: Db, workspaceId: string, page: PageRequest): ProviderRow[] {
  return providerPages(db, { workspaceId }, page);
}

