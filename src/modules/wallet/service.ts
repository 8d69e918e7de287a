import type { Static } from "@sinclair/typebox";
import { eq } from "drizzle-orm";
import type { AppContext } from "../../core/context.ts";
import { workspaces } from "../../db/schema/index.ts";
import { ApiError, notFound } from "../../http/errors.ts";
import { toIso } from "../../lib/time.ts";
import { appendEntry, walletOf, type LedgerEntryRow, type WalletRow } from "./ledger.ts";
import type { CreditRequest, LedgerEntry, Wallet } from "./models.ts";

/** `12500000` micro-units → `"12.50"` (truncated to the cent, as a statement shows it). */
export function formatMicros(micros: number): string {
  const cents = Math.trunc(micros / 10_000);
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(cents);
  return `${sign}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

export function walletJson(ctx: AppContext, row: WalletRow): Static<typeof Wallet> {
  return { object: "wallet", workspace_id: row.workspaceId, currency: ctx.config.currency, balance: row.balance, balance_formatted: formatMicros(row.balance), updated_at: toIso(row.updatedAt) };
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

/** The operator credits or debits a tenant (offline billing); a debit may not take the balance below zero. */
export function creditWorkspace(ctx: AppContext, workspaceId: string, body: Static<typeof CreditRequest>, operatorUserId: string | null) {
  if (body.amount === 0) throw new ApiError("validation_failed", "amount: must not be zero", { errors: [{ field: "amount", message: "must not be zero" }] });
  return ctx.sqlite
    .transaction(() => {
      if (!ctx.db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).get()) throw notFound("workspace");
      const wallet = walletOf(ctx, workspaceId);
      if (wallet.balance + body.amount < 0) {
        throw new ApiError("insufficient_funds", `the debit of ${formatMicros(-body.amount)} ${ctx.config.currency} is more than the balance of ${formatMicros(wallet.balance)}`);
      }
      const { entry } = appendEntry(ctx, {
        workspaceId,
        amount: body.amount,
        cause: body.amount > 0 ? "operator_credit" : "operator_debit",
        refType: "workspace",
        refId: workspaceId,
        note: body.note,
        createdBy: operatorUserId,
      });
      return { entry: ledgerEntryJson(entry), wallet: walletJson(ctx, walletOf(ctx, workspaceId)) };
    })
    .immediate();
}
