import type { Static } from "@sinclair/typebox";
import { and, count, desc, gte, inArray, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { afterCursor } from "../../db/pagination.ts";
import { calls, ledgerEntries, members, wallets, workspaces } from "../../db/schema/index.ts";
import type { PageRequest } from "../../http/pagination.ts";
import { DAY, toIso } from "../../lib/time.ts";
import type { Tenant } from "./models.ts";

type WorkspaceRow = typeof workspaces.$inferSelect;

/** Every workspace of the instance, newest first. */
export function listTenants(ctx: AppContext, page: PageRequest): WorkspaceRow[] {
  return ctx.db.select().from(workspaces).where(afterCursor(workspaces.createdAt, workspaces.id, page.after)).orderBy(desc(workspaces.createdAt), desc(workspaces.id)).limit(page.limit + 1).all();
}

/** One page of tenants with their members, balance and the last 30 days' calls and spend (a few grouped reads per page). */
export function tenantsJson(ctx: AppContext, rows: WorkspaceRow[]): Static<typeof Tenant>[] {
  const ids = rows.map((row) => row.id);
  if (!ids.length) return [];
  const since = ctx.clock.now() - 30 * DAY;
  const byId = <T extends { id: string }>(list: T[]) => new Map(list.map((item) => [item.id, item]));
  const people = byId(ctx.db.select({ id: members.workspaceId, n: count() }).from(members).where(inArray(members.workspaceId, ids)).groupBy(members.workspaceId).all());
  const balances = byId(ctx.db.select({ id: wallets.workspaceId, balance: wallets.balance }).from(wallets).where(inArray(wallets.workspaceId, ids)).all());
  const usage = byId(
    ctx.db
      .select({ id: calls.workspaceId, calls: count(), seconds: sql<number>`coalesce(sum(${calls.durationMs}), 0) / 1000` })
      .from(calls)
      .where(and(inArray(calls.workspaceId, ids), gte(calls.createdAt, since), isNull(calls.testRunId))) // agent tests' calls are not usage
      .groupBy(calls.workspaceId)
      .all(),
  );
  const spend = byId(
    ctx.db
      .select({ id: ledgerEntries.workspaceId, amount: sql<number>`-coalesce(sum(${ledgerEntries.amount}), 0)` })
      .from(ledgerEntries)
      .where(and(inArray(ledgerEntries.workspaceId, ids), inArray(ledgerEntries.cause, ["call_usage", "number_fee"]), gte(ledgerEntries.createdAt, since)))
      .groupBy(ledgerEntries.workspaceId)
      .all(),
  );
  return rows.map((row) => ({
    object: "tenant" as const,
    id: row.id,
    name: row.name,
    is_operator: row.isOperator,
    members: people.get(row.id)?.n ?? 0,
    currency: ctx.config.currency,
    balance: balances.get(row.id)?.balance ?? 0,
    usage_30d: { calls: usage.get(row.id)?.calls ?? 0, seconds: Math.round(usage.get(row.id)?.seconds ?? 0), spend: spend.get(row.id)?.amount ?? 0 },
    suspended_at: toIso(row.suspendedAt),
    suspended_reason: row.suspendedReason,
    created_at: toIso(row.createdAt),
  }));
}
