import { and, desc, eq, isNotNull, lt, sql } from "drizzle-orm";
import type { AppContext } from "../../../core/context.ts";
import { afterCursor, type PageRequest } from "../../../db/pagination.ts";
import { paymentEvents, payments, savedPaymentMethods } from "../../../db/schema/index.ts";
import { newTimeOrderedId } from "../../../lib/ids.ts";

export type PaymentRow = typeof payments.$inferSelect;
export type PaymentStatus = PaymentRow["status"];
export type SavedCardRow = typeof savedPaymentMethods.$inferSelect;

/** Joins the caller's transaction, or opens an immediate one (money is never moved half-way). */
export function inTransaction<T>(ctx: AppContext, work: () => T): T {
  return ctx.sqlite.inTransaction ? work() : ctx.sqlite.transaction(work).immediate();
}

/** A new pending payment: what it is for, its amounts and expiry; the rest starts empty. */
export function insertPayment(
  ctx: AppContext,
  fields: Pick<PaymentRow, "workspaceId" | "provider" | "kind" | "amountMinor" | "creditMicros" | "createdBy" | "expiresAt">,
): PaymentRow {
  const now = ctx.clock.now();
  const row: PaymentRow = {
    id: newTimeOrderedId("txn", now),
    status: "pending",
    currency: ctx.config.currency,
    providerRef: null,
    checkoutUrl: null,
    failureReason: null,
    ledgerEntryId: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
    ...fields,
  };
  ctx.db.insert(payments).values(row).run();
  return row;
}

export function updatePayment(ctx: AppContext, id: string, patch: Partial<PaymentRow>): PaymentRow {
  return ctx.db.update(payments).set({ ...patch, updatedAt: ctx.clock.now() }).where(eq(payments.id, id)).returning().get()!;
}

export function paymentOf(ctx: AppContext, workspaceId: string, id: string): PaymentRow | undefined {
  return ctx.db.select().from(payments).where(and(eq(payments.workspaceId, workspaceId), eq(payments.id, id))).get();
}

/** Any workspace's payment: only for a provider's signed callback, which names the payment itself. */
export function paymentForCallback(ctx: AppContext, id: string): PaymentRow | undefined {
  return ctx.db.select().from(payments).where(eq(payments.id, id)).get();
}

export function listPayments(ctx: AppContext, workspaceId: string, page: PageRequest, status?: PaymentStatus): PaymentRow[] {
  return ctx.db
    .select()
    .from(payments)
    .where(and(eq(payments.workspaceId, workspaceId), status ? eq(payments.status, status) : undefined, afterCursor(payments.createdAt, payments.id, page.after)))
    .orderBy(desc(payments.createdAt), desc(payments.id))
    .limit(page.limit + 1)
    .all();
}

/** The workspace's latest automatic recharge, whatever became of it. */
export function lastAutoRecharge(ctx: AppContext, workspaceId: string): PaymentRow | undefined {
  return ctx.db
    .select()
    .from(payments)
    .where(and(eq(payments.workspaceId, workspaceId), eq(payments.kind, "auto_recharge")))
    .orderBy(desc(payments.createdAt), desc(payments.id))
    .limit(1)
    .get();
}

/** Pending payments past their expiry: their provider is asked what became of them. */
export function overduePayments(ctx: AppContext, now: number, limit: number): PaymentRow[] {
  return ctx.db
    .select()
    .from(payments)
    .where(and(eq(payments.status, "pending"), isNotNull(payments.expiresAt), lt(payments.expiresAt, now)))
    .orderBy(payments.expiresAt)
    .limit(limit)
    .all();
}

/**
 * Records a provider event by its id; false when it was recorded before (a replay: it changes
 * nothing). Call inside the transaction that applies it, so a crash leaves neither.
 */
export function recordProviderEvent(ctx: AppContext, event: typeof paymentEvents.$inferInsert): boolean {
  return ctx.db.insert(paymentEvents).values(event).onConflictDoNothing().run().changes === 1;
}

export function setProviderEventOutcome(ctx: AppContext, provider: string, eventId: string, outcome: string): void {
  ctx.db.update(paymentEvents).set({ outcome }).where(and(eq(paymentEvents.provider, provider), eq(paymentEvents.eventId, eventId))).run();
}

export function providerEventOutcome(ctx: AppContext, provider: string, eventId: string): string | undefined {
  return ctx.db.select({ outcome: paymentEvents.outcome }).from(paymentEvents).where(and(eq(paymentEvents.provider, provider), eq(paymentEvents.eventId, eventId))).get()?.outcome;
}

export function savedCardOf(ctx: AppContext, workspaceId: string): SavedCardRow | undefined {
  return ctx.db.select().from(savedPaymentMethods).where(eq(savedPaymentMethods.workspaceId, workspaceId)).get();
}

export function saveCard(ctx: AppContext, workspaceId: string, provider: string, customerRef: string): void {
  const now = ctx.clock.now();
  ctx.db
    .insert(savedPaymentMethods)
    .values({ workspaceId, provider, customerRef, paymentMethodRef: null, updatedAt: now })
    .onConflictDoUpdate({ target: savedPaymentMethods.workspaceId, set: { provider, customerRef, updatedAt: now, paymentMethodRef: sql`CASE WHEN ${savedPaymentMethods.customerRef} = ${customerRef} THEN ${savedPaymentMethods.paymentMethodRef} END` } })
    .run();
}
