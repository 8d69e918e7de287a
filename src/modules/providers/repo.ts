import { and, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { providerConnections } from "../../db/schema/index.ts";
import { afterCursor, type PageRequest } from "../../db/pagination.ts";
import type { ProviderRow } from "../../providers/store.ts";


export function listProviders(db: Db, workspaceId: string, page: PageRequest): ProviderRow[] {
  return db
    .select()
    .from(providerConnections)
    .where(and(eq(providerConnections.workspaceId, workspaceId), afterCursor(providerConnections.createdAt, providerConnections.id, page.after)))
    .orderBy(desc(providerConnections.createdAt), desc(providerConnections.id))
    .limit(page.limit + 1)
    .all();
}

