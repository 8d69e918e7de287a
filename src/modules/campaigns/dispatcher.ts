import { and, asc, eq, inArray, isNull, lte, min, or, sql, type SQL } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { campaignContacts, campaigns, type ContactStatus } from "../../db/schema/index.ts";
import { isWindowOpen, nextWindowOpening } from "./window.ts";
import { ApiError } from "../../http/errors.ts";
import { enqueueOrAdvance } from "../../jobs/queue.ts";
import type { RunningJob } from "../../jobs/runner.ts";
import { MINUTE } from "../../lib/time.ts";
import { createOutboundCall } from "../calls/service.ts";
import { completeCampaign, contactCounts, findCampaign } from "./repo.ts";
import type { CampaignRow, ContactRow } from "./models.ts";

export const DISPATCH_JOB = "campaigns.dispatch";

/** Contacts the dispatcher may dial (retries only once their time has come). */
const WAITING: ContactStatus[] = ["pending", "retry_scheduled"];

/** Asks the campaign's dispatcher to look again by `at` (now by default). */
export function wakeDispatcher(ctx: AppContext, campaign: Pick<CampaignRow, "id" | "workspaceId">, at = ctx.clock.now()): void {
  enqueueOrAdvance(ctx, { type: DISPATCH_JOB, payload: { campaign_id: campaign.id }, uniqueKey: `${DISPATCH_JOB}:${campaign.id}`, runAt: at, workspaceId: campaign.workspaceId, maxAttempts: 1000 });
}

/**
 * One look at a running campaign: dial as many waiting contacts as concurrency, pacing and the
 * calling window allow, then schedule the next look. Everything happens in one transaction, and a
 * contact is claimed (status `dialing`, attempt counted) in the same transaction that creates its
 * call, so no contact is ever dialled twice for one attempt: not by two dispatchers, not after a crash.
 */
export async function dispatchCampaign(ctx: AppContext, job: RunningJob<{ campaign_id: string }>): Promise<void> {
  ctx.sqlite.transaction(() => {
    job.complete();
    const campaign = findCampaign(ctx, job.payload.campaign_id);
    if (!campaign || campaign.status !== "running") return;
    const next = dispatchOnce(ctx, campaign);
    if (next !== null) wakeDispatcher(ctx, campaign, next);
  })();
}

/** Dials what it may now; returns when to look again (null: a call's end will wake it). */
function dispatchOnce(ctx: AppContext, campaign: CampaignRow): number | null {
  const now = ctx.clock.now();
  if (campaign.startAt && campaign.startAt > now) return campaign.startAt;
  if (campaign.endAt && campaign.endAt <= now) {
    // Time is up: whoever is still waiting is skipped; the calls in progress finish.
    ctx.db.update(campaignContacts).set({ status: "skipped", lastEndReason: "campaign_ended", updatedAt: now }).where(and(eq(campaignContacts.campaignId, campaign.id), inArray(campaignContacts.status, WAITING))).run();
    finishIfDone(ctx, campaign);
    return null;
  }

  const counts = contactCounts(ctx, campaign.id);
  let free = campaign.concurrency - counts.dialing;
  const openZones = openTimeZones(ctx, campaign, now);
  let nextDialAt = campaign.nextDialAt;
  const interval = MINUTE / campaign.callsPerMinute;

  while (free > 0 && nextDialAt <= now) {
    const contact = nextContact(ctx, campaign, now, openZones);
    if (!contact) break;
    const claimed = ctx.db
      .update(campaignContacts)
      .set({ status: "dialing", attempts: sql`${campaignContacts.attempts} + 1`, lastDialedAt: now, nextAttemptAt: null, updatedAt: now })
      .where(and(eq(campaignContacts.id, contact.id), inArray(campaignContacts.status, WAITING)))
      .run().changes;
    if (!claimed) break; // cannot happen inside this transaction; never spin on it
    try {
      const call = createOutboundCall(
        ctx,
        campaign.workspaceId,
        { agent_id: campaign.agentId, to: contact.phone, fromNumberId: campaign.fromNumberId, variables: contact.variables, simulation: campaign.simulation ?? undefined },
        { campaignId: campaign.id, contactId: contact.id },
      );
      ctx.db.update(campaignContacts).set({ lastCallId: call.id }).where(eq(campaignContacts.id, contact.id)).run();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // The agent cannot call anyone (deleted, no voice, no caller id): stop and say why, instead
      // of burning through every contact. The contact goes back to waiting, its attempt uncounted.
      ctx.db.update(campaignContacts).set({ status: contact.status, attempts: contact.attempts, nextAttemptAt: contact.nextAttemptAt, updatedAt: now }).where(eq(campaignContacts.id, contact.id)).run();
      ctx.db.update(campaigns).set({ status: "paused", lastError: error.message, updatedAt: now }).where(eq(campaigns.id, campaign.id)).run();
      return null;
    }
    free--;
    // Even spacing without drift: a dial slightly late keeps the schedule; after a long gap the
    // schedule restarts from now rather than bursting to catch up.
    nextDialAt = (now - nextDialAt < interval ? nextDialAt : now) + interval;
  }
  ctx.db.update(campaigns).set({ nextDialAt, updatedAt: now }).where(eq(campaigns.id, campaign.id)).run();

  if (finishIfDone(ctx, campaign)) return null;
  // Look again at the earliest moment something can change by itself; call ends wake it sooner.
  const wakes: number[] = [];
  if (free > 0 && nextDialAt > now && hasWaiting(ctx, campaign, now, openZones)) wakes.push(nextDialAt);
  const retry = earliestRetry(ctx, campaign.id);
  if (retry !== null && retry > now) wakes.push(retry);
  const opening = nextOpening(ctx, campaign, now);
  if (opening !== null && opening > now) wakes.push(opening);
  if (campaign.endAt) wakes.push(campaign.endAt);
  return wakes.length ? Math.min(...wakes) : null;
}

/** Zones whose window is open now (null: no window, every contact may be called). */
function openTimeZones(ctx: AppContext, campaign: CampaignRow, now: number): string[] | null {
  const window = campaign.window;
  if (!window) return null;
  return waitingZones(ctx, campaign).filter((zone) => isWindowOpen(window, now, zone));
}

/** The distinct zones of contacts still to call; a contact without one uses the window's. */
function waitingZones(ctx: AppContext, campaign: CampaignRow): string[] {
  const window = campaign.window!;
  if (!window.contact_timezone) return [window.timezone];
  const rows = ctx.db
    .selectDistinct({ zone: sql<string>`coalesce(${campaignContacts.timezone}, ${window.timezone})` })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaign.id), inArray(campaignContacts.status, WAITING)))
    .all();
  return rows.map((row) => row.zone);
}

function zoneCondition(campaign: CampaignRow, openZones: string[] | null): SQL | undefined {
  if (openZones === null) return undefined;
  if (!campaign.window!.contact_timezone) return openZones.length ? undefined : sql`0`;
  const zone = sql`coalesce(${campaignContacts.timezone}, ${campaign.window!.timezone})`;
  return openZones.length ? inArray(zone, openZones) : sql`0`;
}

function dueCondition(campaignId: string, now: number): SQL {
  return and(
    eq(campaignContacts.campaignId, campaignId),
    or(eq(campaignContacts.status, "pending"), and(eq(campaignContacts.status, "retry_scheduled"), or(isNull(campaignContacts.nextAttemptAt), lte(campaignContacts.nextAttemptAt, now)))),
  )!;
}

/** The next contact in upload order (retries among them as their time comes). */
function nextContact(ctx: AppContext, campaign: CampaignRow, now: number, openZones: string[] | null): ContactRow | undefined {
  return ctx.db
    .select()
    .from(campaignContacts)
    .where(and(dueCondition(campaign.id, now), zoneCondition(campaign, openZones)))
    .orderBy(asc(campaignContacts.id))
    .limit(1)
    .get();
}

function hasWaiting(ctx: AppContext, campaign: CampaignRow, now: number, openZones: string[] | null): boolean {
  return nextContact(ctx, campaign, now, openZones) !== undefined;
}

function earliestRetry(ctx: AppContext, campaignId: string): number | null {
  const row = ctx.db
    .select({ at: min(campaignContacts.nextAttemptAt) })
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaignId), eq(campaignContacts.status, "retry_scheduled")))
    .get();
  return row?.at ?? null;
}

/** When the window next opens for a zone that has contacts waiting. */
function nextOpening(ctx: AppContext, campaign: CampaignRow, now: number): number | null {
  const window = campaign.window;
  if (!window) return null;
  const openings = waitingZones(ctx, campaign)
    .map((zone) => nextWindowOpening(window, now, zone))
    .filter((at): at is number => at !== null && at > now);
  return openings.length ? Math.min(...openings) : null;
}

/** Completes the campaign when no contact is waiting or being called. */
export function finishIfDone(ctx: AppContext, campaign: CampaignRow): boolean {
  const counts = contactCounts(ctx, campaign.id);
  if (counts.pending + counts.retry_scheduled + counts.dialing > 0) return false;
  if (counts.total === 0) return false;
  completeCampaign(ctx, campaign, counts);
  return true;
}
