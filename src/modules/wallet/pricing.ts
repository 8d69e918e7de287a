import type { Static } from "@sinclair/typebox";
import { desc } from "drizzle-orm";
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

/**
 * Every price list, newest start first (the newer of two set for the same moment first). An operator sets
 * a handful over the years, and every call start and settlement asks which is in force: they are read
 * once and kept until prices are set again (one process per data dir).
 */
const lists = new WeakMap<AppContext, PriceListRow[]>();

function allPriceLists(ctx: AppContext): PriceListRow[] {
  let rows = lists.get(ctx);
  if (!rows) lists.set(ctx, (rows = ctx.db.select().from(priceLists).orderBy(desc(priceLists.effectiveAt), desc(priceLists.createdAt)).all()));
  return rows;
}

/** The list in force at `at`: the latest one that had started by then. */
export function priceListAt(ctx: AppContext, at: number): PriceListRow | null {
  return allPriceLists(ctx).find((row) => row.effectiveAt <= at) ?? null;
}

export function pricesAt(ctx: AppContext, at: number): PriceSet {
  return (priceListAt(ctx, at)?.prices as PriceSet | undefined) ?? FREE;
}

/** Lists set for later, soonest first. */
export function upcomingPriceLists(ctx: AppContext, now: number): PriceListRow[] {
  return allPriceLists(ctx).filter((row) => row.effectiveAt > now).reverse();
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
  lists.delete(ctx);
  return row;
}

export function priceListJson(row: PriceListRow | null, currency: string): Static<typeof PriceList> {
  const prices = (row?.prices as PriceSet | undefined) ?? FREE;
  return { object: "price_list", id: row?.id ?? null, currency: row?.currency ?? currency, effective_at: toIso(row?.effectiveAt ?? null), ...prices };
}
