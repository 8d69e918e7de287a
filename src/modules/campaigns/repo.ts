import { and, count, eq, inArray, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { calls, campaignContacts, campaigns, CONTACT_STATUSES, ledgerEntries, type ContactStatus } from "../../db/schema/index.ts";
import { toIso } from "../../lib/time.ts";
import { publishWorkspaceEvent } from "../../webhooks/outbox.ts";
import type { CampaignRow } from "./models.ts";

export type Counts = Record<"total" | ContactStatus, number>;

export function findCampaign(ctx: AppContext, id: string): CampaignRow | undefined {
  return ctx.db.select().from(campaigns).where(eq(campaigns.id, id)).get();
}

/** Contacts per state (every state present, zero when none), from the (campaign, status) index. */
export function contactCounts(ctx: AppContext, campaignId: string): Counts {
  const counts = Object.fromEntries(["total", ...CONTACT_STATUSES].map((status) => [status, 0])) as Counts;
  const rows = ctx.db.select({ status: campaignContacts.status, n: count() }).from(campaignContacts).where(eq(campaignContacts.campaignId, campaignId)).groupBy(campaignContacts.status).all();
  for (const row of rows) {
    counts[row.status] = row.n;
    counts.total += row.n;
  }
  return counts;
}

/** Contacts in these states (an index range per state: cheap enough for every dispatcher look). */
export function countInStates(ctx: AppContext, campaignId: string, states: ContactStatus[]): number {
  return ctx.db.select({ n: count() }).from(campaignContacts).where(and(eq(campaignContacts.campaignId, campaignId), inArray(campaignContacts.status, states))).get()?.n ?? 0;
}

/** Calls placed for the campaign, how many were answered, and their minutes. */
export function callTotals(ctx: AppContext, workspaceId: string, campaignId: string): { calls: number; answered: number; durationMs: number } {
  const row = ctx.db
    .select({
      calls: count(),
      answered: sql<number>`count(${calls.answeredAt})`,
      durationMs: sql<number>`coalesce(sum(${calls.durationMs}), 0)`,
    })
    .from(calls)
    .where(and(eq(calls.workspaceId, workspaceId), eq(calls.campaignId, campaignId)))
    .get();
  return { calls: row?.calls ?? 0, answered: Number(row?.answered ?? 0), durationMs: Number(row?.durationMs ?? 0) };
}

/** What the wallet was charged for the campaign's calls: in all, and per contact (retries included). */
export function campaignCosts(ctx: AppContext, workspaceId: string, campaignId: string): { total: number; byContact: Map<number, number> } {
  const rows = ctx.db
    .select({ contact: sql<number | null>`json_extract(${calls.metadata}, '$.contact_id')`, cost: sql<number>`-sum(${ledgerEntries.amount})` })
    .from(calls)
    .innerJoin(ledgerEntries, eq(ledgerEntries.refId, calls.id))
    .where(and(eq(calls.workspaceId, workspaceId), eq(calls.campaignId, campaignId)))
    .groupBy(sql`1`)
    .all();
  const byContact = new Map<number, number>();
  let total = 0;
  for (const row of rows) {
    total += row.cost;
    if (row.contact !== null) byContact.set(Number(row.contact), row.cost);
  }
  return { total, byContact };
}

/** The final transition, with `campaign.completed` in the same transaction. */
export function completeCampaign(ctx: AppContext, campaign: CampaignRow, counts: Counts): void {
  const now = ctx.clock.now();
  const changed = ctx.db
    .update(campaigns)
    .set({ status: "completed", completedAt: now, updatedAt: now })
    .where(and(eq(campaigns.id, campaign.id), inArray(campaigns.status, ["running", "paused"])))
    .run().changes;
  if (!changed) return;
  const totals = callTotals(ctx, campaign.workspaceId, campaign.id);
  publishWorkspaceEvent(ctx, {
    workspaceId: campaign.workspaceId,
    type: "campaign.completed",
    data: {
      campaign_id: campaign.id,
      name: campaign.name,
      completed_at: toIso(now),
      counts: Object.fromEntries(Object.entries(counts).filter(([status, n]) => status !== "total" && n > 0)),
      calls: totals.calls,
      minutes: Math.round((totals.durationMs / 60_000) * 100) / 100,
    },
  });
}
