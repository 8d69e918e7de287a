import { and, eq, inArray, sql } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { campaignContacts, campaigns } from "../../db/schema/index.ts";
import { ApiError } from "../../http/errors.ts";
import { enqueueOrAdvance } from "../../jobs/queue.ts";
import type { RunningJob } from "../../jobs/runner.ts";
import { MINUTE } from "../../lib/time.ts";
import type { CarrierReach } from "../../telephony/reach.ts";
import { earliestRetry, nextDueContact, WAITING, waitingZones, type ZoneFilter } from "./contact-queue.ts";
import type { CampaignRow } from "./models.ts";
import { completeCampaign, contactCounts, countInStates, findCampaign } from "./repo.ts";
import { isWindowOpen, nextWindowOpening } from "./window.ts";

export const DISPATCH_JOB = "campaigns.dispatch";

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
/**
 * Queues a call for a contact (the calls feature's createOutboundCall, handed over by the
 * composition root); throws ApiError when the agent cannot call.
 */
export type PlaceCampaignCall = (
  workspaceId: string,
  input: { agent_id: string; to: string; fromNumberId: string | null; variables: Record<string, unknown>; simulation?: Record<string, unknown> },
  extra: { campaignId: string; contactId: number; reach: CarrierReach },
) => { id: string };

export async function dispatchCampaign(ctx: AppContext, placeCall: PlaceCampaignCall, job: RunningJob<{ campaign_id: string }>): Promise<void> {
  ctx.sqlite.transaction(() => {
    job.complete();
    const campaign = findCampaign(ctx, job.payload.campaign_id);
    if (!campaign || campaign.status !== "running") return;
    const next = dispatchOnce(ctx, placeCall, campaign);
    if (next !== null) wakeDispatcher(ctx, campaign, next);
  })();
}

/** Dials what it may now; returns when to look again (null: a call's end will wake it). */
function dispatchOnce(ctx: AppContext, placeCall: PlaceCampaignCall, campaign: CampaignRow): number | null {
  const now = ctx.clock.now();
  if (campaign.startAt && campaign.startAt > now) return campaign.startAt;
  if (campaign.endAt && campaign.endAt <= now) {
    // Time is up: whoever is still waiting is skipped; the calls in progress finish.
    ctx.db.update(campaignContacts).set({ status: "skipped", lastEndReason: "campaign_ended", updatedAt: now }).where(and(eq(campaignContacts.campaignId, campaign.id), inArray(campaignContacts.status, WAITING))).run();
    finishIfDone(ctx, campaign);
    return null;
  }

  let free = campaign.concurrency - countInStates(ctx, campaign.id, ["dialing"]);
  const zones = openZones(ctx, campaign, now);
  let nextDialAt = campaign.nextDialAt;
  const interval = MINUTE / campaign.callsPerMinute;

  while (free > 0 && nextDialAt <= now) {
    const contact = nextDueContact(ctx, campaign.id, now, zones);
    if (!contact) break;
    const claimed = ctx.db
      .update(campaignContacts)
      .set({ status: "dialing", attempts: sql`${campaignContacts.attempts} + 1`, lastDialedAt: now, nextAttemptAt: null, updatedAt: now })
      .where(and(eq(campaignContacts.id, contact.id), inArray(campaignContacts.status, WAITING)))
      .run().changes;
    // Another node's dispatcher took it since it was read (PostgreSQL; SQLite's one writer never does): the
    // next due contact is another, as the taken one is no longer waiting. Stopping here left no look scheduled.
    if (!claimed) continue;
    try {
      const call = placeCall(
        campaign.workspaceId,
        { agent_id: campaign.agentId, to: contact.phone, fromNumberId: campaign.fromNumberId, variables: contact.variables, simulation: campaign.simulation ?? undefined },
        { campaignId: campaign.id, contactId: contact.id, reach: campaign.reach },
      );
      ctx.db.update(campaignContacts).set({ lastCallId: call.id }).where(eq(campaignContacts.id, contact.id)).run();
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      // The agent cannot call anyone (deleted, no voice, no caller id, a carrier the starter's test key may not reach): stop and say why, instead
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
  if (free > 0 && nextDialAt > now && nextDueContact(ctx, campaign.id, now, zones)) wakes.push(nextDialAt);
  const retry = earliestRetry(ctx, campaign.id);
  if (retry !== null && retry > now) wakes.push(retry);
  const opening = nextOpening(ctx, campaign, now);
  if (opening !== null && opening > now) wakes.push(opening);
  if (campaign.endAt) wakes.push(campaign.endAt);
  return wakes.length ? Math.min(...wakes) : null;
}

/** Zones whose window is open now (null: no window, every contact may be called). */
function openZones(ctx: AppContext, campaign: CampaignRow, now: number): ZoneFilter {
  const window = campaign.window;
  if (!window) return null;
  if (!window.contact_timezone) return isWindowOpen(window, now) ? null : [];
  return waitingZones(ctx, campaign.id).filter((zone) => isWindowOpen(window, now, zone ?? window.timezone));
}

/** When the window next opens for a zone that has contacts waiting. */
function nextOpening(ctx: AppContext, campaign: CampaignRow, now: number): number | null {
  const window = campaign.window;
  if (!window) return null;
  const zones = window.contact_timezone ? waitingZones(ctx, campaign.id).map((zone) => zone ?? window.timezone) : [window.timezone];
  const openings = zones.map((zone) => nextWindowOpening(window, now, zone)).filter((at): at is number => at !== null && at > now);
  return openings.length ? Math.min(...openings) : null;
}

/** Completes the campaign when no contact is waiting or being called. */
export function finishIfDone(ctx: AppContext, campaign: CampaignRow): boolean {
  if (countInStates(ctx, campaign.id, [...WAITING, "dialing"]) > 0) return false;
  const counts = contactCounts(ctx, campaign.id);
  if (counts.total === 0) return false;
  completeCampaign(ctx, campaign, counts);
  return true;
}
