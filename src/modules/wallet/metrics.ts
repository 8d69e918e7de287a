import type { AppContext } from "../../core/context.ts";
import type { ledgerEntries } from "../../db/schema/index.ts";

type LedgerCause = (typeof ledgerEntries.$inferSelect)["cause"];

/** The ledger's causes that take money out of a wallet. */
const CHARGE_CAUSES: LedgerCause[] = ["call_usage", "number_fee", "operator_debit", "adjustment"];

function charges(ctx: AppContext) {
  return {
    count: ctx.metrics.counter("parley_wallet_charges_total", "Ledger entries that took money out of a wallet, by cause.", ["cause"]),
    amount: ctx.metrics.counter("parley_wallet_charged_micros_total", "Money charged to wallets, in micro-units (millionths) of the instance currency, by cause.", ["cause", "currency"]),
  };
}

export function walletMetrics(ctx: AppContext): void {
  const { count, amount } = charges(ctx);
  for (const cause of CHARGE_CAUSES) {
    count.labels(cause);
    amount.labels(cause, ctx.config.currency);
  }
}

/** A charge written to the ledger (`micros` > 0). */
export function countCharge(ctx: AppContext, cause: LedgerCause, micros: number): void {
  const { count, amount } = charges(ctx);
  count.labels(cause).inc();
  amount.labels(cause, ctx.config.currency).inc(micros);
}
