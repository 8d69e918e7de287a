import type { Static } from "@sinclair/typebox";
import { and, asc, desc, gt, lte, sql } from "drizzle-orm";
import { prepared } from "../../db/prepared.ts";
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
  return listInForce(ctx.db).get({ at }) ?? null;
}

const listInForce = prepared((db) =>
  db.select().from(priceLists).where(lte(priceLists.effectiveAt, sql.placeholder("at"))).orderBy(desc(priceLists.effectiveAt), desc(priceLists.createdAt)).limit(1).prepare(),
);

/** Price lists by the moment asked for (each live call asks for its answer time every interval); cleared when prices are set. */
const recent = new WeakMap<AppContext, Map<number, PriceSet>>();

export function pricesAt(ctx: AppContext, at: number): PriceSet {
  let cache = recent.get(ctx);
  if (!cache) recent.set(ctx, (cache = new Map()));
  let prices = cache.get(at);
  if (!prices) {
    prices = (priceListAt(ctx, at)?.prices as PriceSet | undefined) ?? FREE;
    // Only a moment already past is settled for good: a list set later may start before a future one.
    if (at <= ctx.clock.now()) cache.set(at, prices);
    if (cache.size > 10_000) cache.clear();
  }
  return prices;
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
  recent.delete(ctx);
  return row;
}

export function priceListJson(row: PriceListRow | null, currency: string): Static<typeof PriceList> {
  const prices = (row?.prices as PriceSet | undefined) ?? FREE;
  return { object: "price_list", id: row?.id ?? null, currency: row?.currency ?? currency, effective_at: toIso(row?.effectiveAt ?? null), ...prices };
}
