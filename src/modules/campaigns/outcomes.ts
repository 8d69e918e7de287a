import { and, eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { campaignContacts, type ContactStatus } from "../../db/schema/index.ts";
import { MINUTE } from "../../lib/time.ts";
import type { CallRow } from "../calls/models.ts";
import { finishIfDone, wakeDispatcher } from "./dispatcher.ts";
import { findCampaign } from "./repo.ts";
import type { RetryPolicy } from "../../db/schema/campaigns.ts";

type Outcome = "completed" | "voicemail" | "no_answer" | "busy" | "failed";

/** What a finished call means for its contact. */
function outcomeOf(call: CallRow): Outcome {
  if (call.status === "completed" && call.endReason === "voicemail") return "voicemail";
  if (call.status === "completed" || call.status === "transferred") return "completed";
  if (call.status === "no_answer" || call.status === "busy") return call.status;
  return "failed";
}

/** A voicemail that is not retried was still a reached, finished call. */
const FINAL: Record<Outcome, ContactStatus> = { completed: "completed", voicemail: "completed", no_answer: "no_answer", busy: "busy", failed: "failed" };

export function contactStatusAfter(outcome: Outcome, attempts: number, retry: RetryPolicy): ContactStatus {
  return retry.on.includes(outcome as RetryPolicy["on"][number]) && attempts < retry.max_attempts ? "retry_scheduled" : FINAL[outcome];
}

/**
 * A campaign call ended: its contact moves on (final, or a retry per the campaign's policy) in the
 * same transaction as the call's own end, and the dispatcher is woken to use the free line.
 */
export function recordCampaignOutcome(ctx: AppContext, call: CallRow): void {
  const campaignId = call.metadata?.campaign_id;
  if (typeof campaignId !== "string") return;
  const campaign = findCampaign(ctx, campaignId);
  if (!campaign) return;
  const contact = ctx.db
    .select()
    .from(campaignContacts)
    .where(and(eq(campaignContacts.campaignId, campaignId), eq(campaignContacts.lastCallId, call.id), eq(campaignContacts.status, "dialing")))
    .get();
  if (!contact) return;
  const now = ctx.clock.now();
  const outcome = outcomeOf(call);
  // A canceled campaign finishes its live calls but tries nobody again; nor is a call whose node was lost
  // (it rang, so it may have reached the person: a call that may have been placed is never placed again).
  const status = campaign.status === "canceled" || call.endReason === "node_lost" ? FINAL[outcome] : contactStatusAfter(outcome, contact.attempts, campaign.retry);
  ctx.db
    .update(campaignContacts)
    .set({
      status,
      lastEndReason: call.endReason ?? call.status,
      nextAttemptAt: status === "retry_scheduled" ? now + campaign.retry.delay_minutes * MINUTE : null,
      updatedAt: now,
    })
    .where(eq(campaignContacts.id, contact.id))
    .run();
  if (campaign.status === "running") wakeDispatcher(ctx, campaign);
  // Paused with its last call just ended and nobody left to call: it is done (paused → completed).
  else if (campaign.status === "paused") finishIfDone(ctx, campaign);
}
