import type { Static } from "@sinclair/typebox";
import { and, asc, desc, gt, lte } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { priceLists } from "../../db/schema/index.ts";
import { invalid } from "../../http/errors.ts";
import { newTimeOrderedId } from "../../lib/ids.ts";
import { MINUTE, toIso } from "../../lib/time.ts";
import type { PriceList, Prices, PricingUpdate } from "./models.ts";

export type PriceSet = Static<typeof Prices>;
type PriceListRow = typeof priceLists.$inferSelect;

const lines = { inbound: 0, outbound: 0 };
/** An instance whose operator set no prices charges nothing: calls need no balance until prices exist. */
export const FREE: PriceSet = {
  per_minute: { telephony: { simulated: lines, sip: lines, twilio: lines, telnyx: lines }, browser_voice: 0, speech: { builtin: 0, provider: 0 }, llm: { builtin: 0, provider: 0 } },
  number_monthly: { simulated: 0, sip: 0, twilio: 0, telnyx: 0 },
};

/** A list may start a little before its request arrived (clock skew), never earlier. */
const BACKDATE_TOLERANCE_MS = MINUTE;

/** The list in force at `at`: the latest one that had started by then (the newer of two set for the same moment). */
export function priceListAt(ctx: AppContext, at: number): PriceListRow | null {
  return ctx.db.select().from(priceLists).where(lte(priceLists.effectiveAt, at)).orderBy(desc(priceLists.effectiveAt), desc(priceLists.createdAt)).limit(1).get() ?? null;
}

export function pricesAt(ctx: AppContext, at: number): PriceSet {
  return (priceListAt(ctx, at)?.prices as PriceSet | undefined) ?? FREE;
}

export function upcomingPriceLists(ctx: AppContext, now: number): PriceListRow[] {
  return ctx.db.select().from(priceLists).where(and(gt(priceLists.effectiveAt, now))).orderBy(asc(priceLists.effectiveAt), asc(priceLists.createdAt)).all();
}

/** A new price list; the ones before it stay, so charges already made keep the prices they were made at. */
export function setPrices(ctx: AppContext, body: Static<typeof PricingUpdate>, createdBy: string | null): PriceListRow {
  const now = ctx.clock.now();
  const effectiveAt = body.effective_at === undefined ? now : Date.parse(body.effective_at);
  if (Number.isNaN(effectiveAt)) throw invalid("effective_at", "must be a date-time");
  if (effectiveAt < now - BACKDATE_TOLERANCE_MS) throw invalid("effective_at", "must not be in the past: charges already made keep their prices");
  const row: PriceListRow = {
    id: newTimeOrderedId("prc", now),
    currency: ctx.config.currency,
    prices: { per_minute: body.per_minute, number_monthly: body.number_monthly },
    effectiveAt,
    createdBy,
    createdAt: now,
  };
  ctx.db.insert(priceLists).values(row).run();
  return row;
}

export function priceListJson(row: PriceListRow | null, currency: string): Static<typeof PriceList> {
  const prices = (row?.prices as PriceSet | undefined) ?? FREE;
  return { object: "price_list", id: row?.id ?? null, currency: row?.currency ?? currency, effective_at: toIso(row?.effectiveAt ?? null), ...prices };
}
