import type { Static } from "@sinclair/typebox";
import { and, eq, gte, inArray, lt, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { ledgerEntries } from "../../db/schema/index.ts";
import { invalid } from "../../http/errors.ts";
import { periodOf } from "../../http/period.ts";
import { DAY, toIso } from "../../lib/time.ts";
import type { WalletUsage } from "./models.ts";

/** Charges, as opposed to credits: what "spend" adds up. */
const SPEND = ["call_usage", "number_fee"] as const;

/** Spend in [from, to): by UTC day, by agent, by category (with the call seconds each category paid for). */
export function walletUsage(ctx: AppContext, workspaceId: string, query: { from?: string; to?: string }): Static<typeof WalletUsage> {
  const { from, to } = periodOf(query, ctx.clock.now());
  if (to - from > 366 * DAY) throw invalid("from", "the period may be at most 366 days");
  const where = and(eq(ledgerEntries.workspaceId, workspaceId), inArray(ledgerEntries.cause, [...SPEND]), gte(ledgerEntries.createdAt, from), lt(ledgerEntries.createdAt, to));
  // Charges are negative entries; spend is their opposite.
  const amount = sql<number>`-coalesce(sum(${ledgerEntries.amount}), 0)`;
  const seconds = sql<number>`coalesce(sum(${ledgerEntries.quantity}), 0)`;
  const day = sql<string>`strftime('%Y-%m-%d', ${ledgerEntries.createdAt} / 1000, 'unixepoch')`;
  // Seconds only per category: a call's second is paid once per category (line, speech, LLM).
  // Equal amounts by name: the database's grouping order is no order (SQLite's and PostgreSQL's differ).
  const byDay = ctx.db.select({ day, amount }).from(ledgerEntries).where(where).groupBy(day).orderBy(day).all();
  const byAgent = ctx.db.select({ agent_id: ledgerEntries.agentId, amount }).from(ledgerEntries).where(where).groupBy(ledgerEntries.agentId).orderBy(sql`2 desc, 1`).all();
  const byCategory = ctx.db
    .select({ category: sql<string>`coalesce(${ledgerEntries.category}, ${ledgerEntries.cause})`, amount, seconds })
    .from(ledgerEntries)
    .where(where)
    .groupBy(sql`1`)
    .orderBy(sql`2 desc, 1`)
    .all();
  return {
    object: "wallet_usage",
    currency: ctx.config.currency,
    from: toIso(from),
    to: toIso(to),
    total: byDay.reduce((sum, d) => sum + d.amount, 0),
    by_day: byDay,
    by_agent: byAgent,
    by_category: byCategory,
  };
}
