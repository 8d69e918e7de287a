// Where Stripe Checkout sends the payer back: the payment's state, asked again every few seconds while
// it is pending (the card processor's confirmation reaches the server on its own, by webhook).
import { useEffect, useState } from "preact/hooks";
import type { Payment } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { formatMicros, formatMinor } from "../../lib/money.ts";
import { problemOf, type Problem } from "../../lib/problem.ts";
import { navigate } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { PAGES } from "../../paths.ts";
import { Loading, ProblemNotice, Success } from "../../ui/status.tsx";

const POLL_MS = 1500;
const MAX_POLLS = 120;

export function PaymentReturn({ id, result, onSettled }: { id: string; result: string | null; onSettled: () => void }) {
  const [payment, setPayment] = useState<Payment | null>(null);
  const [problem, setProblem] = useState<Problem | null>(null);
  const [gaveUp, setGaveUp] = useState(false);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let polls = 0;
    const poll = async () => {
      try {
        const found = await session.client.payments.get(id);
        if (!live) return;
        setPayment(found);
        if (found.status !== "pending") return onSettled();
        // A canceled checkout stays open until it lapses: nothing to wait for.
        if (result === "canceled") return;
        if (++polls < MAX_POLLS) timer = setTimeout(poll, POLL_MS);
        else setGaveUp(true);
      } catch (error) {
        session.check(error);
        if (live) setProblem(problemOf(error));
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [id]);
  const dismiss = () => navigate(PAGES.billing, { replace: true });
  return (
    <section class="panel highlight billing-return" aria-labelledby="payment-return-title">
      <h2 id="payment-return-title">Your payment</h2>
      <div aria-live="polite">
        {problem && <ProblemNotice problem={problem} />}
        {!problem && !payment && <Loading label="Looking up your payment…" />}
        {payment && <PaymentState payment={payment} result={result} gaveUp={gaveUp} />}
      </div>
      <div class="actions">
        <button type="button" class="button secondary" onClick={dismiss}>
          Dismiss
        </button>
      </div>
    </section>
  );
}

function PaymentState({ payment, result, gaveUp }: { payment: Payment; result: string | null; gaveUp: boolean }) {
  const paid = formatMinor(payment.amount, payment.currency);
  const credit = formatMicros(payment.credit, payment.currency);
  switch (payment.status) {
    case "succeeded":
      return <Success>Payment of {paid} succeeded: {credit} was added to your balance.</Success>;
    case "failed":
      return <ProblemNotice problem={{ message: `The payment of ${paid} failed${payment.failure_reason ? `: ${payment.failure_reason}` : "."} Nothing was added.`, fields: {}, requestId: null }} />;
    case "expired":
      return <p>The payment of {paid} expired before it was paid. Nothing was charged; start a new top-up.</p>;
    case "pending":
      if (result === "canceled")
        return <p>You left the card payment page: nothing was charged. The checkout stays open until {formatDate(payment.expires_at)}, then lapses.</p>;
      if (gaveUp) return <p>The card processor has not confirmed the payment of {paid} yet. It shows in the payments below once it does.</p>;
      return <Loading label={`Confirming your payment of ${paid}… This updates by itself.`} />;
  }
}
