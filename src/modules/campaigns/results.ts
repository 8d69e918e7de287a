import { and, asc, eq, gt } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { calls, campaignContacts } from "../../db/schema/index.ts";
import { csvLine } from "../../lib/csv.ts";
import { toIso } from "../../lib/time.ts";
import type { CampaignRow } from "./models.ts";
import { callTotals, campaignCosts, contactCounts } from "./repo.ts";

const PAGE = 1000;
const FIXED = ["phone", "status", "attempts", "last_call_id", "duration_seconds", "end_reason", "called_at", "summary", "cost_micros"];

/**
 * Results as CSV, one row per contact in upload order: every uploaded column as it was, then the
 * outcome and the agent's extracted fields. Streamed a page at a time, so a 100,000-contact
 * campaign never sits in memory; cells that a spreadsheet would run as formulas are neutralised.
 */
export function resultsCsv(ctx: AppContext, campaign: CampaignRow, extractionFields: string[]): ReadableStream<Uint8Array> {
  const uploaded = campaign.columns.filter((column) => column.variable !== "phone");
  const header = [...uploaded.map((column) => column.header), ...FIXED, ...extractionFields.map((name) => `extracted_${name}`)];
  let after = 0;
  let started = false;
  const encoder = new TextEncoder();
  // One grouped read of what each contact's calls cost (a map of numbers, even for 100,000 contacts).
  let costs: Map<number, number> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(csvLine(header)));
        costs = campaignCosts(ctx, campaign.workspaceId, campaign.id).byContact;
      }
      const rows = ctx.db
        .select({ contact: campaignContacts, call: { durationMs: calls.durationMs, summary: calls.summary, extracted: calls.extracted, createdAt: calls.createdAt } })
        .from(campaignContacts)
        .leftJoin(calls, eq(calls.id, campaignContacts.lastCallId))
        .where(and(eq(campaignContacts.campaignId, campaign.id), gt(campaignContacts.id, after)))
        .orderBy(asc(campaignContacts.id))
        .limit(PAGE)
        .all();
      let chunk = "";
      for (const { contact, call } of rows) {
        const extracted = (call?.extracted ?? {}) as Record<string, unknown>;
        chunk += csvLine([
          ...uploaded.map((column) => contact.variables[column.variable] ?? ""),
          contact.phone,
          contact.status,
          contact.attempts,
          contact.lastCallId,
          call?.durationMs == null ? null : Math.round(call.durationMs / 1000),
          contact.lastEndReason,
          toIso(call?.createdAt ?? null),
          call?.summary ?? null,
          costs?.get(contact.id) ?? 0,
          ...extractionFields.map((name) => extracted[name] ?? null),
        ]);
        after = contact.id;
      }
      if (chunk) controller.enqueue(encoder.encode(chunk));
      if (rows.length < PAGE) controller.close();
    },
  });
}

/** Progress and outcome figures for dashboards: counts per state, answer rate, minutes, cost. */
export function campaignStats(ctx: AppContext, campaign: CampaignRow) {
  const counts = contactCounts(ctx, campaign.id);
  const totals = callTotals(ctx, campaign.workspaceId, campaign.id);
  const done = counts.total - counts.pending - counts.retry_scheduled - counts.dialing;
  return {
    object: "campaign_stats" as const,
    campaign_id: campaign.id,
    status: campaign.status,
    counts,
    progress: counts.total ? Math.round((done / counts.total) * 1000) / 1000 : 0,
    calls: totals.calls,
    answered: totals.answered,
    answer_rate: totals.calls ? Math.round((totals.answered / totals.calls) * 1000) / 1000 : null,
    minutes: Math.round((totals.durationMs / 60_000) * 100) / 100,
    average_duration_seconds: totals.answered ? Math.round(totals.durationMs / totals.answered / 100) / 10 : null,
    currency: ctx.config.currency,
    cost: campaignCosts(ctx, campaign.workspaceId, campaign.id).total,
  };
}
