import type { AppContext } from "../../../core/context.ts";
import { ApiError, invalid, notFound } from "../../../http/errors.ts";
import { minorDigits } from "./currency.ts";
import { inTransaction, insertPayment, paymentOf, type PaymentRow } from "./repo.ts";
import { succeedPayment } from "./settle.ts";

/**
 * The operator's offline billing: settling a tenant's pending offline top-up (its invoice was paid),
 * or crediting one directly, which is recorded as a succeeded offline payment. Either way the ledger
 * entry and `payment.succeeded` commit with the payment.
 */
export function operatorPayment(ctx: AppContext, input: { workspaceId: string; amount: number; note: string; operatorUserId: string | null; paymentId?: string }): PaymentRow {
  return inTransaction(ctx, () => {
    if (input.paymentId) {
      const pending = paymentOf(ctx, input.workspaceId, input.paymentId);
      if (!pending) throw notFound("payment");
      if (pending.provider !== "offline" || pending.status !== "pending") throw new ApiError("invalid_state", `payment ${pending.id} is a ${pending.status} ${pending.provider} payment: only a pending offline top-up is settled by the operator`);
      if (input.amount !== pending.creditMicros) throw invalid("amount", `must be the top-up's credit, ${pending.creditMicros} micro-units`);
      const settled = succeedPayment(ctx, pending.id, { note: input.note });
      if (!settled.changed) throw new ApiError("invalid_state", `payment ${pending.id} was settled meanwhile`); // by another node, at the same time
      return settled.payment;
    }
    const currency = ctx.config.currency;
    const row = insertPayment(ctx, {
      workspaceId: input.workspaceId,
      provider: "offline",
      kind: "credit",
      // Micro-units to minor units: a credit of fractions of a cent still shows as what it rounds to.
      amountMinor: Math.round(input.amount / 10 ** (6 - minorDigits(currency))),
      creditMicros: input.amount,
      createdBy: input.operatorUserId,
      expiresAt: null,
    });
    return succeedPayment(ctx, row.id, { cause: "operator_credit", note: input.note }).payment;
  });
}
