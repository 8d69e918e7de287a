import type { Static } from "@sinclair/typebox";
import { eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { ledgerEntries, workspaces } from "../../db/schema/index.ts";
import { ApiError, invalid, notFound } from "../../http/errors.ts";
import { toIso } from "../../lib/time.ts";
import { appendWithinBalance, walletOf, type LedgerEntryRow, type WalletRow } from "./ledger.ts";
import type { CreditRequest, LedgerEntry, Wallet } from "./models.ts";
import { paymentJson } from "./payments/json.ts";
import { operatorPayment } from "./payments/offline.ts";
import { stripeOf } from "./payments/stripe.ts";

/** `12500000` micro-units → `"12.50"` (truncated to the cent, as a statement shows it). */
export function formatMicros(micros: number): string {
  const cents = Math.trunc(micros / 10_000);
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** Refuses (402) what the wallet cannot pay before it begins (a call's first minute, a number's first month); free things always begin. */
export function requireBalance(ctx: AppContext, workspaceId: string, cost: number, what: string): void {
  if (cost <= 0) return;
  const balance = walletOf(ctx, workspaceId).balance;
  if (balance < cost) throw new ApiError("insufficient_funds", `the wallet holds ${formatMicros(balance)} ${ctx.config.currency}; ${what} costs ${formatMicros(cost)}: top up first`);
}

export function walletJson(ctx: AppContext, row: WalletRow): Static<typeof Wallet> {
  return {
    object: "wallet",
    workspace_id: row.workspaceId,
    currency: ctx.config.currency,
    balance: row.balance,
    balance_formatted: formatMicros(row.balance),
    card_payments: stripeOf(ctx) !== null,
    updated_at: toIso(row.updatedAt),
  };
}

export function ledgerEntryJson(row: LedgerEntryRow): Static<typeof LedgerEntry> {
  return {
    object: "ledger_entry",
    id: row.id,
    workspace_id: row.workspaceId,
    amount: row.amount,
    balance_after: row.balanceAfter,
    cause: row.cause,
    category: row.category,
    ref_type: row.refType,
    ref_id: row.refId,
    note: row.note,
    created_at: toIso(row.createdAt),
  };
}

/**
 * The operator credits or debits a tenant (offline billing). A credit is an offline payment (and
 * `payment.succeeded`); with `payment_id` it settles the tenant's pending offline top-up. A debit may
 * not take the balance below zero.
 */
export function creditWorkspace(ctx: AppContext, workspaceId: string, body: Static<typeof CreditRequest>, operatorUserId: string | null) {
  if (body.amount === 0) throw new ApiError("validation_failed", "amount: must not be zero", { errors: [{ field: "amount", message: "must not be zero" }] });
  if (body.payment_id && body.amount < 0) throw invalid("amount", "must be positive to settle a top-up");
  return ctx.sqlite
    .transaction(() => {
      if (!ctx.db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).get()) throw notFound("workspace");
      if (body.amount > 0) {
        const payment = operatorPayment(ctx, { workspaceId, amount: body.amount, note: body.note, operatorUserId, paymentId: body.payment_id });
        const entry = ctx.db.select().from(ledgerEntries).where(eq(ledgerEntries.id, payment.ledgerEntryId!)).get()!;
        return { entry: ledgerEntryJson(entry), wallet: walletJson(ctx, walletOf(ctx, workspaceId)), payment: paymentJson(payment) };
      }
      const debited = appendWithinBalance(ctx, { workspaceId, amount: body.amount, cause: "operator_debit", refType: "workspace", refId: workspaceId, note: body.note, createdBy: operatorUserId });
      if (!debited) {
        throw new ApiError("insufficient_funds", `the debit of ${formatMicros(-body.amount)} ${ctx.config.currency} is more than the balance of ${formatMicros(walletOf(ctx, workspaceId).balance)}`);
      }
      return { entry: ledgerEntryJson(debited.entry), wallet: walletJson(ctx, walletOf(ctx, workspaceId)), payment: null };
    })
    .immediate();
}
