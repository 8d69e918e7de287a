import { and, eq, inArray, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { ledgerEntries } from "../../db/schema/index.ts";

export interface CallCost {
  currency: string;
  /** Micro-units charged so far (final once the call has ended and been settled). */
  total: number;
  breakdown: { category: string; amount: number; seconds: number }[];
}

/** What the wallet charged each of these calls, by category, in one read (a page of calls at a time). */
export function callCosts(ctx: AppContext, workspaceId: string, callIds: string[]): Map<string, CallCost> {
  const costs = new Map<string, CallCost>(callIds.map((id) => [id, { currency: ctx.config.currency, total: 0, breakdown: [] }]));
  if (!callIds.length) return costs;
  const rows = ctx.db
    .select({ callId: ledgerEntries.refId, category: ledgerEntries.category, amount: sql<number>`-sum(${ledgerEntries.amount})`, seconds: sql<number>`coalesce(sum(${ledgerEntries.quantity}), 0)` })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.workspaceId, workspaceId), eq(ledgerEntries.refType, "call"), inArray(ledgerEntries.refId, callIds)))
    .groupBy(ledgerEntries.refId, ledgerEntries.category)
    .orderBy(ledgerEntries.refId, ledgerEntries.category)
    .all();
  for (const row of rows) {
    const cost = costs.get(row.callId ?? "");
    if (!cost) continue;
    cost.total += row.amount;
    cost.breakdown.push({ category: row.category ?? "call_usage", amount: row.amount, seconds: row.seconds });
  }
  return costs;
}
