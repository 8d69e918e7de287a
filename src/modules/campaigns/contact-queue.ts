// The dispatcher's questions of a campaign's contacts, each answered with index seeks so that a
// look at a 100,000-contact campaign costs the same as one at a 10-contact one.
import { and, asc, eq, gt, inArray, isNull, lte, min, or, sql, type SQL } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { campaignContacts, type ContactStatus } from "../../db/schema/index.ts";
import type { ContactRow } from "./models.ts";

/** Where a contact's calling window is read: its own `timezone`, or (null) the window's zone. */
export type ZoneKey = string | null;

/** Zones whose contacts may be called now; null: no window, anyone may be. */
export type ZoneFilter = ZoneKey[] | null;

/** Contacts the dispatcher may dial (retries only once their time has come). */
export const WAITING: ContactStatus[] = ["pending", "retry_scheduled"];

const byCampaign = (campaignId: string, status: ContactStatus) => and(eq(campaignContacts.campaignId, campaignId), eq(campaignContacts.status, status))!;

function zoneCondition(zones: ZoneKey[]): SQL {
  const named = zones.filter((zone): zone is string => zone !== null);
  const parts: SQL[] = [];
  if (named.length) parts.push(inArray(campaignContacts.timezone, named));
  if (zones.includes(null)) parts.push(isNull(campaignContacts.timezone));
  return parts.length ? or(...parts)! : sql`0`; // no zone open: nobody
}

/**
 * The distinct zones among waiting contacts. A campaign has a few zones and many contacts, so each
 * zone is found with one seek on (campaign, status, timezone) instead of reading every contact.
 */
export function waitingZones(ctx: AppContext, campaignId: string): ZoneKey[] {
  const zones = new Set<ZoneKey>();
  for (const status of WAITING) {
    const where = byCampaign(campaignId, status);
    if (ctx.db.select({ id: campaignContacts.id }).from(campaignContacts).where(and(where, isNull(campaignContacts.timezone))).limit(1).get()) zones.add(null);
    for (let last = ""; ; ) {
      const row = ctx.db.select({ zone: campaignContacts.timezone }).from(campaignContacts).where(and(where, gt(campaignContacts.timezone, last))).orderBy(asc(campaignContacts.timezone)).limit(1).get();
      if (!row?.zone) break;
      zones.add(row.zone);
      last = row.zone;
    }
  }
  return [...zones];
}

/** A retry whose time has come (earliest first), else the first pending contact in upload order. */
export function nextDueContact(ctx: AppContext, campaignId: string, now: number, zones: ZoneFilter): ContactRow | undefined {
  if (zones?.length === 0) return undefined;
  const retry = ctx.db
    .select()
    .from(campaignContacts)
    .where(and(byCampaign(campaignId, "retry_scheduled"), lte(campaignContacts.nextAttemptAt, now), zones ? zoneCondition(zones) : undefined))
    .orderBy(asc(campaignContacts.nextAttemptAt), asc(campaignContacts.id))
    .limit(1)
    .get();
  if (retry) return retry;
  const firstPending = (zone?: ZoneKey) =>
    ctx.db
      .select()
      .from(campaignContacts)
      .where(and(byCampaign(campaignId, "pending"), zone === undefined ? undefined : zone === null ? isNull(campaignContacts.timezone) : eq(campaignContacts.timezone, zone)))
      .orderBy(asc(campaignContacts.id))
      .limit(1)
      .get();
  if (zones === null) return firstPending();
  // One seek per open zone; the earliest upload among them goes first.
  let next: ContactRow | undefined;
  for (const zone of zones) {
    const candidate = firstPending(zone);
    if (candidate && (!next || candidate.id < next.id)) next = candidate;
  }
  return next;
}

export function earliestRetry(ctx: AppContext, campaignId: string): number | null {
  return ctx.db.select({ at: min(campaignContacts.nextAttemptAt) }).from(campaignContacts).where(byCampaign(campaignId, "retry_scheduled")).get()?.at ?? null;
}
