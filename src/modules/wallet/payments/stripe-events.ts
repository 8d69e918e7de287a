import type { AppContext } from "../../../core/context.ts";
import type { CheckoutSession, PaymentIntent } from "./stripe-client.ts";
import { inTransaction, paymentForCallback, providerEventOutcome, recordProviderEvent, saveCard, setProviderEventOutcome, updatePayment, type PaymentRow } from "./repo.ts";
import { closePayment, succeedPayment } from "./settle.ts";

/** The part of a Stripe event that top-ups read. */
export interface StripeEvent {
  id: string;
  type: string;
  data: { object: Record<string, unknown> };
}

/**
 * Applies one verified Stripe event, once: the event id is recorded in the transaction that applies
 * it, so a replay (Stripe retries, an attacker resends a captured request) changes nothing. Events
 * arriving out of order cannot undo a payment: only a pending payment fails or expires, and success
 * is credited once whatever came before.
 */
export function applyStripeEvent(ctx: AppContext, event: StripeEvent): { duplicate: boolean; outcome: string } {
  return inTransaction(ctx, () => {
    const metadata = event.data.object.metadata as Record<string, unknown> | null | undefined;
    const payment = typeof metadata?.payment_id === "string" ? paymentForCallback(ctx, metadata.payment_id) : undefined;
    const first = recordProviderEvent(ctx, { provider: "stripe", eventId: event.id, type: event.type, paymentId: payment?.id ?? null, outcome: "received", receivedAt: ctx.clock.now() });
    if (!first) return { duplicate: true, outcome: providerEventOutcome(ctx, "stripe", event.id) ?? "received" };
    const known = event.type.startsWith("checkout.session.") || event.type.startsWith("payment_intent.");
    const outcome = payment ? outcomeOf(ctx, event, payment) : known ? "unknown_payment" : "ignored_type";
    setProviderEventOutcome(ctx, "stripe", event.id, outcome);
    return { duplicate: false, outcome };
  });
}

function outcomeOf(ctx: AppContext, event: StripeEvent, payment: PaymentRow): string {
  const object = event.data.object;
  if (event.type.startsWith("checkout.session.")) {
    const session = object as unknown as CheckoutSession;
    const mismatch = sessionMismatch(payment, session);
    if (mismatch) return mismatch;
    if (payment.providerRef === null) updatePayment(ctx, payment.id, { providerRef: session.id });
    switch (event.type) {
      case "checkout.session.completed":
        if (session.customer) saveCard(ctx, payment.workspaceId, "stripe", session.customer);
        // A bank debit completes the session unpaid; its async_payment_* event settles it later.
        return session.payment_status === "paid" ? applied(succeedPayment(ctx, payment.id).changed) : "awaiting_payment";
      case "checkout.session.async_payment_succeeded":
        return applied(succeedPayment(ctx, payment.id).changed);
      case "checkout.session.async_payment_failed":
        return applied(closePayment(ctx, payment.id, "failed", "the payment failed after checkout").changed);
      case "checkout.session.expired":
        return applied(closePayment(ctx, payment.id, "expired", "the checkout was not completed in time").changed);
    }
    return "ignored_type";
  }
  if (event.type.startsWith("payment_intent.") && payment.kind === "auto_recharge") {
    const intent = object as unknown as PaymentIntent;
    const mismatch = intentMismatch(payment, intent);
    if (mismatch) return mismatch;
    if (event.type === "payment_intent.succeeded") return applied(succeedPayment(ctx, payment.id).changed);
    if (event.type === "payment_intent.payment_failed") return applied(closePayment(ctx, payment.id, "failed", declineReason(intent)).changed);
  }
  return "ignored_type";
}

const applied = (changed: boolean) => (changed ? "applied" : "already_final");

/** A session that does not match its payment (another amount, currency, workspace or session) credits nothing. */
function sessionMismatch(payment: PaymentRow, session: CheckoutSession): string | null {
  if (payment.provider !== "stripe") return "mismatch_provider";
  if (payment.providerRef !== null && payment.providerRef !== session.id) return "mismatch_session";
  if (session.metadata?.workspace_id !== payment.workspaceId) return "mismatch_workspace";
  if (session.amount_total !== payment.amountMinor || session.currency?.toUpperCase() !== payment.currency) return "mismatch_amount";
  return null;
}

function intentMismatch(payment: PaymentRow, intent: PaymentIntent): string | null {
  if (payment.providerRef !== null && payment.providerRef !== intent.id) return "mismatch_intent";
  if (intent.metadata?.workspace_id !== payment.workspaceId) return "mismatch_workspace";
  if (intent.amount !== payment.amountMinor || intent.currency?.toUpperCase() !== payment.currency) return "mismatch_amount";
  return null;
}

export function declineReason(intent: Pick<PaymentIntent, "last_payment_error">): string {
  const error = intent.last_payment_error;
  return error?.message ? `the card was declined: ${error.message}` : "the card was declined";
}
