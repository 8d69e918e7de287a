import type { AppContext } from "../../../core/context.ts";
import { DAY, MINUTE } from "../../../lib/time.ts";
import { overduePayments, updatePayment, type PaymentRow } from "./repo.ts";
import { closePayment, succeedPayment } from "./settle.ts";
import { declineReason } from "./stripe-events.ts";
import { stripeOf } from "./stripe.ts";

/** Stripe expires a Checkout Session at its time; past this grace we stop waiting for its word. */
const GRACE = 10 * MINUTE;
const BATCH = 50;

/**
 * Pending payments past their expiry are settled from the provider's own record: a webhook that never
 * arrived (an outage, a misconfigured endpoint) still credits a paid Checkout, and an abandoned one
 * expires. An offline top-up the operator never settled lapses.
 */
export async function reconcileOverdue(ctx: AppContext): Promise<number> {
  const overdue = overduePayments(ctx, ctx.clock.now(), BATCH);
  for (const payment of overdue) {
    try {
      await reconcile(ctx, payment);
    } catch (error) {
      ctx.logger.warn("could not ask the payment provider about an overdue payment", { payment_id: payment.id, error: (error as Error).message });
    }
  }
  return overdue.length;
}

async function reconcile(ctx: AppContext, payment: PaymentRow): Promise<void> {
  const now = ctx.clock.now();
  if (payment.provider === "offline") return void closePayment(ctx, payment.id, "expired", "the operator did not settle it in time");
  const stripe = stripeOf(ctx);
  if (!stripe || payment.providerRef === null) {
    if (payment.expiresAt! + GRACE < now) closePayment(ctx, payment.id, "failed", payment.providerRef === null ? "it never reached Stripe" : "this instance no longer takes card payments");
    return;
  }
  if (payment.providerRef.startsWith("cs_")) {
    const session = await stripe.retrieveCheckoutSession(payment.providerRef);
    if (session.status === "complete" && session.payment_status === "paid" && session.amount_total === payment.amountMinor) succeedPayment(ctx, payment.id);
    // A bank debit completes the checkout unpaid and settles days later: ask again tomorrow.
    else if (session.status === "complete" && session.payment_status === "unpaid") updatePayment(ctx, payment.id, { expiresAt: now + DAY });
    else if (session.status === "expired" || payment.expiresAt! + GRACE < now) closePayment(ctx, payment.id, "expired", "the checkout was not completed in time");
    return;
  }
  const intent = await stripe.retrievePaymentIntent(payment.providerRef);
  if (intent.status === "succeeded" && intent.amount === payment.amountMinor) succeedPayment(ctx, payment.id);
  else if (intent.status === "processing") updatePayment(ctx, payment.id, { expiresAt: now + 60 * MINUTE });
  else closePayment(ctx, payment.id, "failed", declineReason(intent));
}
