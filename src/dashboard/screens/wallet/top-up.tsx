// A top-up: by card (to Stripe Checkout, which sends the payer back to this screen) where the operator set
// Stripe up, or a request the operator settles when the invoice is paid. Where there is no Stripe the form
// says so, and offers no card to become an invoice behind the payer's back.
import { useState } from "preact/hooks";
import type { Payment } from "../../../sdk/ts/src/index.ts";
import { formatMinor, parseUnits, unitsToMinor } from "../../lib/money.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, SelectField } from "../../ui/field.tsx";
import { ProblemNotice, Success } from "../../ui/status.tsx";

const METHODS = [
  { value: "", label: "Card" },
  { value: "offline", label: "Invoice or bank transfer" },
];

export function TopUp({ currency, cardPayments, onRequested }: { currency: string; cardPayments: boolean; onRequested: () => void }) {
  const [amount, setAmount] = useState("25");
  const [method, setMethod] = useState(cardPayments ? "" : "offline");
  const [requested, setRequested] = useState<Payment | null>(null);
  const [leaving, setLeaving] = useState(false);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setRequested(null);
    await action.run(async () => {
      const units = parseUnits(amount);
      // An amount that is no number goes to the server as one it refuses, so the field is named the same way.
      const payment = await session.client.payments.topup({ amount: units === null ? -1 : unitsToMinor(units, currency), ...(method === "offline" || !cardPayments ? { provider: "offline" as const } : {}) });
      if (payment.checkout_url) {
        setLeaving(true);
        location.assign(payment.checkout_url);
        return;
      }
      setRequested(payment);
      onRequested();
    });
  };
  const fields = action.problem?.fields ?? {};
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="topup-title">
      <h2 id="topup-title">Top up</h2>
      <ProblemNotice problem={action.problem} />
      {requested && (
        <Success>
          Top-up of {formatMinor(requested.amount, requested.currency)} requested (reference <code class="reference">{requested.id}</code>). The operator adds it to your balance when it is paid.
        </Success>
      )}
      <Field label={`Amount (${currency})`} name="amount" type="text" value={amount} error={fields.amount} hint={cardPayments ? "Charged once; the balance grows by the same amount." : "The balance grows by this amount once the invoice is paid."} onInput={(e) => setAmount(e.currentTarget.value)} />
      {cardPayments ? (
        <SelectField label="How to pay" name="provider" value={method} onChange={setMethod} options={METHODS} error={fields.provider} hint="By card you pay now, on Stripe's page; an invoice is settled by the operator when it is paid." />
      ) : (
        <p class="small" data-testid="no-card">
          This instance takes no card payments (its operator has not set up Stripe): a top-up is a request for an invoice, which the operator adds to your balance when it is paid.
        </p>
      )}
      <div class="actions">
        <button type="submit" class="button primary" disabled={action.busy || leaving}>
          {leaving ? "Opening the payment page…" : action.busy ? "Starting…" : cardPayments ? "Top up" : "Request an invoice"}
        </button>
      </div>
    </form>
  );
}
