import { and, desc, eq, getTableColumns, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { prepared } from "../../db/prepared.ts";
import { agents, agentVersions } from "../../db/schema/index.ts";
import { pagedList, type PageRequest } from "../../db/pagination.ts";

export type AgentRow = typeof agents.$inferSelect;
export type AgentVersionRow = typeof agentVersions.$inferSelect;

const agentById = prepared((db) =>
  db.select().from(agents).where(and(eq(agents.workspaceId, sql.placeholder("workspaceId")), eq(agents.id, sql.placeholder("id")))).prepare(),
);

export function findAgent(db: Db, workspaceId: string, id: string): AgentRow | undefined {
  return agentById(db).get({ workspaceId, id });
}

// The configuration comes back as its stored text: a list writes it into the answer as it is, when its
// turn_taking is stored filled (every write since issue 37 stores it whole, so one of its settings tells).
const { config: _config, ...listColumns } = getTableColumns(agents);
const agentPages = pagedList(agents.createdAt, agents.id, (db, after) =>
  db
    .select({
      ...listColumns,
      configText: sql<string>`${agents.config}`,
      turnTakingFilled: sql<boolean | number>`json_extract(${agents.config}, '$.turn_taking.preemptive_generation') IS NOT NULL`,
    })
    .from(agents)
    .where(and(eq(agents.workspaceId, sql.placeholder("workspaceId")), after))
    .orderBy(desc(agents.createdAt), desc(agents.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
);

/** An agent as a list reads it: the configuration as its stored JSON text. */
export type AgentListRow = Omit<AgentRow, "config"> & { configText: string; turnTakingFilled: boolean | number };

export function listAgents(db: Db, workspaceId: string, page: PageRequest): AgentListRow[] {
  return agentPages(db, { workspaceId }, page);
}

export function insertAgent(db: Db, row: AgentRow): void {
  db.insert(agents).values(row).run();
}

export function updateAgentRow(db: Db, workspaceId: string, id: string, changes: Pick<AgentRow, "name" | "config" | "version" | "updatedAt">): void {
  db.update(agents).set(changes).where(and(eq(agents.workspaceId, workspaceId), eq(agents.id, id))).run();
}

export function deleteAgentRow(db: Db, workspaceId: string, id: string): void {
  db.delete(agents).where(and(eq(agents.workspaceId, workspaceId), eq(agents.id, id))).run();
}

export function insertVersion(db: Db, row: AgentVersionRow): void {
  db.insert(agentVersions).values(row).run();
}

export function listVersions(db: Db, workspaceId: string, agentId: string, limit: number, before: number | null): AgentVersionRow[] {
  const conditions = [eq(agentVersions.workspaceId, workspaceId), eq(agentVersions.agentId, agentId)];
  if (before !== null) conditions.push(lt(agentVersions.version, before));
  return db.select().from(agentVersions).where(and(...conditions)).orderBy(desc(agentVersions.version)).limit(limit + 1).all();
}

/** The highest version stored (drafts included): every new version takes the next number, so a draft never collides. */
export function maxVersion(db: Db, workspaceId: string, agentId: string): number {
  const row = db
    .select({ version: sql<number | null>`max(${agentVersions.version})` })
    .from(agentVersions)
    .where(and(eq(agentVersions.workspaceId, workspaceId), eq(agentVersions.agentId, agentId)))
    .get();
  return Number(row?.version ?? 0);
}

export function markPublished(db: Db, workspaceId: string, agentId: string, version: number): void {
  db.update(agentVersions).set({ draft: false }).where(and(eq(agentVersions.workspaceId, workspaceId), eq(agentVersions.agentId, agentId), eq(agentVersions.version, version))).run();
}

export function findVersion(db: Db, workspaceId: string, agentId: string, version: number): AgentVersionRow | undefined {
  return db
    .select()
    .from(agentVersions)
    .where(and(eq(agentVersions.workspaceId, workspaceId), eq(agentVersions.agentId, agentId), eq(agentVersions.version, version)))
    .get();
}

/** Agents whose configuration mentions an id (a tool, a knowledge base): ids are unique random strings. */
export function agentsReferencing(db: Db, workspaceId: string, id: string): { id: string; name: string }[] {
  return db
    .select({ id: agents.id, name: agents.name })
    .from(agents)
    .where(and(eq(agents.workspaceId, workspaceId), sql`instr(${agents.config}, ${`"${id}"`}) > 0`))
    .all();
}
