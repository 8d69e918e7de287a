import type { Static } from "@sinclair/typebox";
import { toIso } from "../../../lib/time.ts";
import type { Payment } from "./models.ts";
import type { PaymentRow } from "./repo.ts";

const isoOrNull = (at: number | null) => (at === null ? null : toIso(at));

export function paymentJson(row: PaymentRow): Static<typeof Payment> {
  return {
    object: "payment",
    id: row.id,
    workspace_id: row.workspaceId,
    provider: row.provider,
    kind: row.kind,
    status: row.status,
    amount: row.amountMinor,
    currency: row.currency,
    credit: row.creditMicros,
    checkout_url: row.status === "pending" ? row.checkoutUrl : null,
    failure_reason: row.failureReason,
    ledger_entry_id: row.ledgerEntryId,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
    expires_at: isoOrNull(row.expiresAt),
    completed_at: isoOrNull(row.completedAt),
  };
}
