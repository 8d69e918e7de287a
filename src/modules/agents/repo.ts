import { and, desc, eq, getTableColumns, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/connection.ts";
import { prepared } from "../../db/prepared.ts";
import { agents, agentVersions } from "../../db/schema/index.ts";
import { afterCursorPlaceholders, type PageRequest } from "../../db/pagination.ts";
import { Lru } from "../../lib/lru.ts";

export type AgentRow = typeof agents.$inferSelect;
export type AgentVersionRow = typeof agentVersions.$inferSelect;

const agentById = prepared((db) =>
  db.select().from(agents).where(and(eq(agents.workspaceId, sql.placeholder("workspaceId")), eq(agents.id, sql.placeholder("id")))).prepare(),
);

export function findAgent(db: Db, workspaceId: string, id: string): AgentRow | undefined {
  return agentById(db).get({ workspaceId, id });
}

// The list is read on every dashboard load: both forms prepared once (first page, and after a cursor).
// The configuration comes back as its stored text, parsed through parsedConfig below.
const { config: _config, ...listColumns } = getTableColumns(agents);
const listPage = (after: boolean) =>
  prepared((db) =>
    db
      .select({ ...listColumns, configText: sql<string>`${agents.config}` })
      .from(agents)
      .where(
        and(
          eq(agents.workspaceId, sql.placeholder("workspaceId")),
          after ? afterCursorPlaceholders(agents.createdAt, agents.id) : undefined,
        ),
      )
      .orderBy(desc(agents.createdAt), desc(agents.id))
      .limit(sql.placeholder("limit"))
      .prepare(),
  );
const firstPage = listPage(false);
const laterPage = listPage(true);

export function listAgents(db: Db, workspaceId: string, page: PageRequest): AgentRow[] {
  const limit = page.limit + 1;
  const rows = page.after ? laterPage(db).all({ workspaceId, limit, at: page.after.at, id: page.after.id }) : firstPage(db).all({ workspaceId, limit });
  return rows.map(({ configText, ...row }) => ({ ...row, config: parsedConfig(configText) }));
}

/**
 * Parsing the configurations was about half the database side of a 20-agent list, and the same texts
 * come back on every load. Keyed by the text itself, an entry can never be stale. The parsed values are
 * shared, so nothing may change them: the test suite freezes them to prove it (frozen objects take
 * JSON.stringify off its fast path, twice as slow, so a running server does not).
 */
const PARSED_CONFIGS_KEPT = 512;
const FREEZE_SHARED = process.env.NODE_ENV === "test";
const parsedConfigs = new Lru<string, Record<string, unknown>>(PARSED_CONFIGS_KEPT);

function parsedConfig(text: string): Record<string, unknown> {
  return parsedConfigs.get(text, () => {
    const config = JSON.parse(text) as Record<string, unknown>;
    return FREEZE_SHARED ? deepFreeze(config) : config;
  });
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object") {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
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
