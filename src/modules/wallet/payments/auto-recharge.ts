import type { Static } from "@sinclair/typebox";
import { and, eq, lt } from "drizzle-orm";
import type { AppContext } from "../../../core/context.ts";
import { wallets } from "../../../db/schema/index.ts";
import { ApiError, invalid } from "../../../http/errors.ts";
import type { RunningJob } from "../../../jobs/runner.ts";
import { enqueueJob } from "../../../jobs/queue.ts";
import { HOUR, toIso } from "../../../lib/time.ts";
import { walletOf, type WalletRow } from "../ledger.ts";
import { belowMinimum, minorToMicros } from "./currency.ts";
import type { AutoRecharge, AutoRechargeUpdate } from "./models.ts";
import { inTransaction, insertPayment, lastAutoRecharge, savedCardOf, updatePayment, type PaymentRow } from "./repo.ts";
import { closePayment, succeedPayment } from "./settle.ts";
import { declineReason } from "./stripe-events.ts";
import { stripeMetadata, stripeOf } from "./stripe.ts";
import { StripeError } from "./stripe-client.ts";

export const AUTO_RECHARGE_JOB = "wallet.auto_recharge";
/** After a declined recharge the card is not tried again for this long (a user may top up by hand). */
export const DECLINE_PAUSE = 6 * HOUR;
/** An off-session charge that Stripe is still processing is asked about again after this. */
const PROCESSING_TTL = HOUR;

export function autoRechargeJson(ctx: AppContext, wallet: WalletRow): Static<typeof AutoRecharge> {
  const card = savedCardOf(ctx, wallet.workspaceId);
  return {
    object: "auto_recharge",
    enabled: wallet.autoRechargeEnabled,
    threshold: wallet.autoRechargeThreshold,
    amount: wallet.autoRechargeAmount,
    currency: ctx.config.currency,
    card: card ? { provider: card.provider, saved_at: toIso(card.updatedAt) } : null,
  };
}

/**
 * Changes the settings; enabling needs a threshold, an amount, Stripe on this instance and a card
 * saved by an earlier Checkout top-up. A wallet already below the new threshold recharges now.
 */
export function updateAutoRecharge(ctx: AppContext, workspaceId: string, body: Static<typeof AutoRechargeUpdate>): Static<typeof AutoRecharge> {
  const wallet = inTransaction(ctx, () => {
    const current = walletOf(ctx, workspaceId);
    const next = {
      autoRechargeEnabled: body.enabled ?? current.autoRechargeEnabled,
      autoRechargeThreshold: body.threshold ?? current.autoRechargeThreshold,
      autoRechargeAmount: body.amount ?? current.autoRechargeAmount,
    };
    const tooSmall = next.autoRechargeAmount === null ? null : belowMinimum(next.autoRechargeAmount, ctx.config.currency);
    if (tooSmall) throw invalid("amount", tooSmall);
    if (next.autoRechargeEnabled) {
      if (next.autoRechargeThreshold === null) throw invalid("threshold", "is needed to enable automatic recharges");
      if (next.autoRechargeAmount === null) throw invalid("amount", "is needed to enable automatic recharges");
      if (!stripeOf(ctx)) throw new ApiError("payment_provider_unavailable", "this instance takes no card payments, so nothing can be recharged automatically");
      if (!savedCardOf(ctx, workspaceId)) throw new ApiError("invalid_state", "no card is saved yet: complete one top-up by card (Stripe Checkout) and its card is kept for recharges");
    }
    return ctx.db.update(wallets).set(next).where(eq(wallets.workspaceId, workspaceId)).returning().get()!;
  });
  if (wallet.autoRechargeEnabled) sweepAutoRecharge(ctx, workspaceId);
  return autoRechargeJson(ctx, wallet);
}

/** Queues a recharge for every wallet (or one) that fell below its threshold; at most one job per wallet. */
export function sweepAutoRecharge(ctx: AppContext, onlyWorkspaceId?: string): number {
  const low = ctx.db
    .select({ workspaceId: wallets.workspaceId })
    .from(wallets)
    .where(and(eq(wallets.autoRechargeEnabled, true), lt(wallets.balance, wallets.autoRechargeThreshold), onlyWorkspaceId ? eq(wallets.workspaceId, onlyWorkspaceId) : undefined))
    .all();
  for (const { workspaceId } of low) {
    enqueueJob(ctx, { type: AUTO_RECHARGE_JOB, payload: { workspace_id: workspaceId }, uniqueKey: `auto_recharge:${workspaceId}`, workspaceId, maxAttempts: 8 });
  }
  return low.length;
}

/**
 * Charges the saved card off-session. The payment row is written before Stripe is asked and its id
 * is the Idempotency-Key, so a crash or retry at any point charges the card at most once.
 */
export async function runAutoRecharge(ctx: AppContext, job: RunningJob<{ workspace_id: string }>): Promise<void> {
  const payment = recharging(ctx, job.payload.workspace_id);
  if (!payment) return;
  const stripe = stripeOf(ctx);
  const card = savedCardOf(ctx, payment.workspaceId);
  if (!stripe || !card) {
    closePayment(ctx, payment.id, "failed", !stripe ? "this instance no longer takes card payments" : "no card is saved");
    return;
  }
  let cards;
  try {
    cards = await stripe.customerCards(card.customerRef);
  } catch (error) {
    if (error instanceof StripeError && error.status === 404) return void closePayment(ctx, payment.id, "failed", "the saved customer is gone at Stripe");
    throw error; // Stripe unreachable: the job retries
  }
  if (!cards.length) return void closePayment(ctx, payment.id, "failed", "the saved customer has no card");
  try {
    const intent = await stripe.createPaymentIntent(
      {
        amount: payment.amountMinor,
        currency: payment.currency.toLowerCase(),
        customer: card.customerRef,
        payment_method: cards[0].id,
        off_session: true,
        confirm: true,
        description: `${ctx.config.brandName} automatic recharge`,
        metadata: stripeMetadata(payment),
      },
      payment.id,
    );
    updatePayment(ctx, payment.id, { providerRef: intent.id });
    if (intent.status === "succeeded") succeedPayment(ctx, payment.id);
    else if (intent.status === "processing") updatePayment(ctx, payment.id, { expiresAt: ctx.clock.now() + PROCESSING_TTL });
    else closePayment(ctx, payment.id, "failed", `the card needs its holder (${intent.status}): top up by hand`);
  } catch (error) {
    if (!(error instanceof StripeError) || error.type !== "card_error") throw error;
    if (error.paymentIntent) updatePayment(ctx, payment.id, { providerRef: error.paymentIntent.id });
    closePayment(ctx, payment.id, "failed", error.paymentIntent ? declineReason(error.paymentIntent) : `the card was declined: ${error.message}`);
  }
}

/** The recharge to charge now: the one a crash left pending, or a new one if the wallet still needs it. */
function recharging(ctx: AppContext, workspaceId: string): PaymentRow | null {
  return inTransaction(ctx, () => {
    const wallet = walletOf(ctx, workspaceId);
    const last = lastAutoRecharge(ctx, workspaceId);
    const now = ctx.clock.now();
    if (last?.status === "pending" && last.providerRef === null) return last;
    if (last?.status === "pending") return null; // charged, awaiting Stripe's word
    if (!wallet.autoRechargeEnabled || wallet.autoRechargeThreshold === null || wallet.autoRechargeAmount === null) return null;
    if (wallet.balance >= wallet.autoRechargeThreshold) return null;
    if (last?.status === "failed" && last.createdAt > now - DECLINE_PAUSE) return null;
    return insertPayment(ctx, {
      workspaceId,
      provider: "stripe",
      kind: "auto_recharge",
      amountMinor: wallet.autoRechargeAmount,
      creditMicros: minorToMicros(wallet.autoRechargeAmount, ctx.config.currency),
      createdBy: null,
      expiresAt: now + PROCESSING_TTL,
    });
  });
}
