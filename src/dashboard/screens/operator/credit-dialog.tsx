// A credit or debit of a tenant's wallet, with the note the ledger keeps; a credit may settle one of
// the tenant's pending offline top-ups (its txn_… id, for exactly its amount).
import { useState } from "preact/hooks";
import type { Tenant } from "../../../sdk/ts/src/index.ts";
import { formatMicros, parseUnits, unitsToMicros } from "../../lib/money.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Dialog } from "../../ui/dialog.tsx";
import { Field, SelectField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

const DIRECTIONS = [
  { value: "credit", label: "Credit: add to the balance" },
  { value: "debit", label: "Debit: take from the balance (never below zero)" },
];

export function CreditDialog({ tenant, onClose, onDone }: { tenant: Tenant; onClose: () => void; onDone: (message: string) => void }) {
  const [direction, setDirection] = useState("credit");
  const [amount, setAmount] = useState("");
  const [note, setNote] = useState("");
  const [paymentId, setPaymentId] = useState("");
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const units = parseUnits(amount);
    const micros = units === null ? 0 : unitsToMicros(Math.abs(units)) * (direction === "debit" ? -1 : 1);
    await action.run(async () => {
      const result = await session.client.operator.creditWorkspace(tenant.id, { amount: micros, note, ...(paymentId.trim() && direction === "credit" ? { payment_id: paymentId.trim() } : {}) });
      onDone(`${tenant.name}: ${direction === "debit" ? "debited" : "credited"} ${formatMicros(Math.abs(micros), tenant.currency)}; the balance is ${formatMicros(result.wallet.balance, result.wallet.currency)}.`);
    });
  };
  const fields = action.problem?.fields ?? {};
  return (
    <Dialog title={`Credit or debit ${tenant.name}`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p class="muted small">Balance now {formatMicros(tenant.balance, tenant.currency)}.</p>
        <ProblemNotice problem={action.problem} />
        <SelectField label="Kind" name="direction" value={direction} onChange={setDirection} options={DIRECTIONS} />
        <Field label={`Amount (${tenant.currency})`} name="amount" required autoFocus value={amount} error={fields.amount} onInput={(e) => setAmount(e.currentTarget.value)} />
        <Field label="Note" name="note" required hint="Why: an invoice number, a goodwill credit, a correction." value={note} error={fields.note} onInput={(e) => setNote(e.currentTarget.value)} />
        {direction === "credit" && (
          <Field label="Settles top-up (optional)" name="payment_id" hint="The txn_… of the tenant's pending offline top-up this pays; the amount must be its credit." value={paymentId} error={fields.payment_id} onInput={(e) => setPaymentId(e.currentTarget.value)} />
        )}
        <FormActions submit={direction === "debit" ? "Debit wallet" : "Credit wallet"} busy={action.busy} busyLabel="Saving…" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
