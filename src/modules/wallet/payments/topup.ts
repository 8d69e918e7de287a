import type { Static } from "@sinclair/typebox";
import type { AppContext } from "../../../core/context.ts";
import { ApiError, invalid } from "../../../http/errors.ts";
import { DAY, MINUTE } from "../../../lib/time.ts";
import { belowMinimum, minorToMicros } from "./currency.ts";
import type { TopupRequest } from "./models.ts";
import { insertPayment, savedCardOf, updatePayment, type PaymentRow } from "./repo.ts";
import { closePayment } from "./settle.ts";
import { stripeMetadata, stripeOf } from "./stripe.ts";
import { StripeError } from "./stripe-client.ts";

/** How long a Checkout page stays payable (Stripe allows 30 minutes to 24 hours). */
const CHECKOUT_TTL = 60 * MINUTE;
/** How long an offline top-up waits for the operator before it lapses. */
const OFFLINE_TTL = 30 * DAY;

export interface TopupInput {
  workspaceId: string;
  userId: string | null;
  body: Static<typeof TopupRequest>;
}

/**
 * Starts a top-up: a pending payment, and for Stripe a Checkout Session whose URL the payer opens.
 * The wallet moves only when the provider confirms (the payment webhook) or the operator settles it.
 */
export async function startTopup(ctx: AppContext, input: TopupInput): Promise<PaymentRow> {
  const currency = ctx.config.currency;
  const { body } = input;
  if (body.currency && body.currency.toUpperCase() !== currency) throw invalid("currency", `must be ${currency}, the instance's currency`);
  const tooSmall = belowMinimum(body.amount, currency);
  if (tooSmall) throw invalid("amount", tooSmall);
  const stripe = stripeOf(ctx);
  const provider = body.provider ?? (stripe ? "stripe" : "offline");
  if (provider === "stripe" && !stripe) throw new ApiError("payment_provider_unavailable", "this instance takes no card payments: top up with provider offline and the operator settles it");
  const now = ctx.clock.now();
  const payment = insertPayment(ctx, {
    workspaceId: input.workspaceId,
    provider,
    kind: "topup",
    amountMinor: body.amount,
    creditMicros: minorToMicros(body.amount, currency),
    createdBy: input.userId,
    expiresAt: now + (provider === "stripe" ? CHECKOUT_TTL : OFFLINE_TTL),
  });
  if (provider === "offline") return payment;
  const base = ctx.config.dashboardUrl || ctx.publicUrl;
  const back = (result: string) => `${base}/billing?payment=${payment.id}&result=${result}`;
  const saved = savedCardOf(ctx, input.workspaceId);
  try {
    const session = await stripe!.createCheckoutSession(
      {
        mode: "payment",
        line_items: [{ price_data: { currency: currency.toLowerCase(), unit_amount: body.amount, product_data: { name: `${ctx.config.brandName} credit` } }, quantity: 1 }],
        client_reference_id: payment.id,
        metadata: stripeMetadata(payment),
        // The card is kept for automatic recharges, charged when the payer is away.
        payment_intent_data: { metadata: stripeMetadata(payment), setup_future_usage: "off_session" },
        ...(saved?.provider === "stripe" ? { customer: saved.customerRef } : { customer_creation: "always" }),
        success_url: back("success"),
        cancel_url: back("canceled"),
        expires_at: Math.floor((now + CHECKOUT_TTL) / 1000),
      },
      payment.id,
    );
    return updatePayment(ctx, payment.id, { providerRef: session.id, checkoutUrl: session.url, expiresAt: session.expires_at * 1000 });
  } catch (error) {
    const reason = error instanceof StripeError ? `Stripe refused the checkout: ${error.message}` : `Stripe could not be reached: ${(error as Error).message}`;
    closePayment(ctx, payment.id, "failed", reason);
    throw new ApiError("bad_gateway", reason);
  }
}
