import { eq, lte } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { numberFees, phoneNumbers } from "../../db/schema/index.ts";
import { appendEntry } from "./ledger.ts";
import { carrierKindOf } from "./metering.ts";
import { pricesAt } from "./pricing.ts";
import { requireBalance } from "./service.ts";
import { failureLevel } from "../../db/refusals.ts";
import { countRefusal } from "../../core/refusal-count.ts";

// A number costs a monthly fee, by its carrier kind, for each calendar month from its purchase: the
// first when it is bought or imported (refused with 402 if the wallet cannot pay it), the next ones
// by a sweep as each begins, at the price in force when that month began. A sweep's fee may take the
// balance below zero: the number keeps answering, and calls are refused (402) until a top-up.

/** What the fees read of a number. */
export interface FeeNumber {
  id: string;
  workspaceId: string;
  number: string;
  /** When it was bought or imported: its months count from here. */
  createdAt: number;
}

/** Period `k` begins `k` calendar months after the anchor (UTC), on the anchor's day or the month's last. */
export function periodStart(anchorAt: number, period: number): number {
  const anchor = new Date(anchorAt);
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + period;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return Date.UTC(year, month, Math.min(anchor.getUTCDate(), lastDay), anchor.getUTCHours(), anchor.getUTCMinutes(), anchor.getUTCSeconds(), anchor.getUTCMilliseconds());
}

/** A month of a number on this kind of carrier, at the prices in force at `at`. */
function monthlyFee(ctx: AppContext, carrierKind: string, at: number): number {
  return (pricesAt(ctx, at).number_monthly as Record<string, number | undefined>)[carrierKind] ?? 0;
}

/** Refuses (402) a number whose first month the wallet cannot pay, before the carrier is asked for it. */
export function ensureNumberFunds(ctx: AppContext, workspaceId: string, carrierKind: string): void {
  requireBalance(ctx, workspaceId, monthlyFee(ctx, carrierKind, ctx.clock.now()), "a month of this number");
}

/** One period's fee, once (its dedupe key): nothing when that month was free. Answers whether it charged. */
function chargePeriod(ctx: AppContext, number: FeeNumber, carrierKind: string, period: number): boolean {
  const start = periodStart(number.createdAt, period);
  const amount = monthlyFee(ctx, carrierKind, start);
  if (amount <= 0) return false;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const { duplicate } = appendEntry(ctx, {
    workspaceId: number.workspaceId,
    amount: -amount,
    cause: "number_fee",
    category: `number.${carrierKind}`,
    refType: "phone_number",
    refId: number.id,
    note: `${number.number}, month ${period + 1}: ${day(start)} to ${day(periodStart(number.createdAt, period + 1))}`,
    dedupe: `number_fee:${number.id}:${period}`,
  });
  return !duplicate;
}

/** In the transaction that adds the number: its first month is charged and the next one scheduled. */
export function startNumberFees(ctx: AppContext, number: FeeNumber, carrierKind: string): void {
  chargePeriod(ctx, number, carrierKind, 0);
  ctx.db
    .insert(numberFees)
    .values({ phoneNumberId: number.id, workspaceId: number.workspaceId, period: 1, anchorAt: number.createdAt, nextAt: periodStart(number.createdAt, 1) })
    .onConflictDoNothing()
    .run();
}

/** In the transaction that releases the number: no more months (the one begun is not refunded). */
export function stopNumberFees(ctx: AppContext, phoneNumberId: string): void {
  ctx.db.delete(numberFees).where(eq(numberFees.phoneNumberId, phoneNumberId)).run();
}

/**
 * Charges every month that has begun and was not charged yet, each at its own price (several if the
 * server was down across them). Each number is one transaction that charges and moves `period` on
 * together, and each charge has its dedupe key: running it again, or after a crash, charges nothing twice.
 * Answers the number of fees charged.
 */
export function chargeNumberFees(ctx: AppContext): number {
  const now = ctx.clock.now();
  const due = ctx.db.select({ id: numberFees.phoneNumberId }).from(numberFees).where(lte(numberFees.nextAt, now)).all();
  let charged = 0;
  for (const { id } of due) {
    try {
      charged += ctx.sqlite.transaction(() => chargeDueMonths(ctx, id, now)).immediate();
    } catch (error) {
      countRefusal(ctx.metrics, "metering", error);
      ctx.logger[failureLevel(error)]("charging a number's monthly fee failed", { phone_number_id: id, error: (error as Error).message });
    }
  }
  return charged;
}

function chargeDueMonths(ctx: AppContext, phoneNumberId: string, now: number): number {
  const fee = ctx.db
    .select({ period: numberFees.period, anchorAt: numberFees.anchorAt, workspaceId: numberFees.workspaceId, number: phoneNumbers.number, carrier: phoneNumbers.carrier })
    .from(numberFees)
    .leftJoin(phoneNumbers, eq(phoneNumbers.id, numberFees.phoneNumberId))
    .where(eq(numberFees.phoneNumberId, phoneNumberId))
    .get();
  if (!fee) return 0;
  if (fee.number === null || fee.carrier === null) {
    stopNumberFees(ctx, phoneNumberId); // the number is gone (its workspace's cleanup): nothing more to charge
    return 0;
  }
  const number: FeeNumber = { id: phoneNumberId, workspaceId: fee.workspaceId, number: fee.number, createdAt: fee.anchorAt };
  const kind = carrierKindOf(ctx, fee.carrier);
  let period = fee.period;
  let charged = 0;
  for (; periodStart(fee.anchorAt, period) <= now; period++) if (chargePeriod(ctx, number, kind, period)) charged++;
  ctx.db.update(numberFees).set({ period, nextAt: periodStart(fee.anchorAt, period) }).where(eq(numberFees.phoneNumberId, phoneNumberId)).run();
  return charged;
}
