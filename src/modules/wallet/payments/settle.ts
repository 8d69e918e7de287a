import type { AppContext } from "../../../core/context.ts";
import { publishWorkspaceEvent } from "../../../webhooks/outbox.ts";
import { appendEntry } from "../ledger.ts";
import { inTransaction, paymentForCallback, updatePayment, type PaymentRow } from "./repo.ts";

/**
 * A payment that took the money: its ledger entry, its final state and `payment.succeeded`, in one
 * transaction. Idempotent: a payment already succeeded is answered as it stands. A payment we had
 * given up on (expired, failed) that the provider says was paid after all is credited: the money
 * was taken.
 */
export function succeedPayment(ctx: AppContext, paymentId: string, how: { cause?: "topup" | "operator_credit"; note?: string } = {}): { payment: PaymentRow; changed: boolean } {
  return inTransaction(ctx, () => {
    const payment = paymentForCallback(ctx, paymentId)!;
    if (payment.status === "succeeded") return { payment, changed: false };
    const { entry, duplicate } = appendEntry(ctx, {
      workspaceId: payment.workspaceId,
      amount: payment.creditMicros,
      cause: how.cause ?? "topup",
      refType: "payment",
      refId: payment.id,
      note: how.note ?? (payment.provider === "offline" ? "offline payment" : `${payment.provider} ${payment.kind === "auto_recharge" ? "automatic recharge" : "top-up"}`),
      createdBy: payment.createdBy,
      dedupe: `payment:${payment.id}`,
    });
    // Another connection credited it since it was read (PostgreSQL, two nodes given the same webhook): its answer stands.
    if (duplicate) return { payment: paymentForCallback(ctx, paymentId)!, changed: false };
    const now = ctx.clock.now();
    const done = updatePayment(ctx, payment.id, { status: "succeeded", ledgerEntryId: entry.id, completedAt: now, failureReason: null, checkoutUrl: null });
    publishWorkspaceEvent(ctx, {
      workspaceId: payment.workspaceId,
      type: "payment.succeeded",
      data: {
        payment_id: payment.id,
        provider: payment.provider,
        kind: payment.kind,
        amount: payment.creditMicros,
        amount_minor: payment.amountMinor,
        currency: payment.currency,
        balance: entry.balanceAfter,
      },
    });
    return { payment: done, changed: true };
  });
}

/** A pending payment that will not be paid: `failed` (declined, refused) or `expired` (never completed). */
export function closePayment(ctx: AppContext, paymentId: string, status: "failed" | "expired", reason: string): { payment: PaymentRow; changed: boolean } {
  return inTransaction(ctx, () => {
    const payment = paymentForCallback(ctx, paymentId)!;
    if (payment.status !== "pending") return { payment, changed: false };
    return { payment: updatePayment(ctx, payment.id, { status, failureReason: reason, completedAt: ctx.clock.now(), checkoutUrl: null }), changed: true };
  });
}
