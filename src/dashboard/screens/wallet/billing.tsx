// Billing: the wallet's balance and what it means at this instance's prices, a top-up (by card through
// Stripe Checkout where the operator set it up, or a request the operator settles), the automatic
// recharge, and the payments. Stripe Checkout sends the payer back here with
// ?payment=txn_…&result=success|canceled, and the payment's state is shown until it leaves pending.
// Payments are read 25 at a time, newest first, with "Load more".
import type { Payment } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { formatMicros, formatMinor } from "../../lib/money.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty } from "../../ui/status.tsx";
import { PagedList, usePages } from "../../ui/paged.tsx";
import { AutoRecharge } from "./auto-recharge.tsx";
import { Balance } from "./balance.tsx";
import { PaymentReturn } from "./payment-return.tsx";
import { TopUp } from "./top-up.tsx";
import { WalletTabs } from "./wallet-tabs.tsx";

const KINDS: Record<Payment["kind"], string> = { topup: "Top-up", auto_recharge: "Automatic recharge", credit: "Credit from the operator" };
export const PAYMENT_STATES: Record<Payment["status"], string> = { pending: "Pending", succeeded: "Succeeded", failed: "Failed", expired: "Expired" };

export function Billing({ query }: { query: URLSearchParams }) {
  const [wallet, reloadWallet] = useLoad(() => session.client.wallet.get(), []);
  const [pricing, reloadPricing] = useLoad(() => session.client.pricing.get(), []);
  const payments = usePages((cursor) => session.client.payments.list({ limit: 25, cursor }), []);
  const reloadPayments = payments.reload;
  const paymentId = query.get("payment");
  const changed = () => {
    reloadWallet();
    reloadPayments();
  };
  return (
    <>
      <PageHeader title="Billing" description="Your balance pays for what has a price on this instance: calls and phone numbers. Top up to add to it." />
      <WalletTabs />
      {paymentId && <PaymentReturn key={paymentId} id={paymentId} result={query.get("result")} onSettled={changed} />}
      <Balance
        wallet={wallet}
        pricing={pricing}
        onRetry={() => {
          reloadWallet();
          reloadPricing();
        }}
      />
      {wallet.status === "ready" && (
        <div class="billing-grid">
          <TopUp currency={wallet.data.currency} cardPayments={wallet.data.card_payments} onRequested={reloadPayments} />
          <AutoRecharge cardPayments={wallet.data.card_payments} />
        </div>
      )}
      <section aria-labelledby="payments-title">
        <h2 id="payments-title">Payments</h2>
        <PagedList pages={payments} what="payments" empty={<Empty title="No payments yet">Top-ups and credits show here.</Empty>}>
          {(items) => <PaymentTable payments={items} />}
        </PagedList>
      </section>
    </>
  );
}

function PaymentTable({ payments }: { payments: Payment[] }) {
  return (
    <DataTable caption="Payments, newest first" columns={["Date", "Amount", "Credit", "Kind", "State", "Reference"]}>
      {payments.map((p) => (
        <tr key={p.id}>
          <td>{formatDate(p.created_at)}</td>
          <td>{formatMinor(p.amount, p.currency)}</td>
          <td>{formatMicros(p.credit, p.currency)}</td>
          <td>
            {KINDS[p.kind]}
            <span class="badge">{p.provider === "stripe" ? "card" : "offline"}</span>
          </td>
          <td>
            <span class={`badge billing-state-${p.status}`}>{PAYMENT_STATES[p.status]}</span>
            {p.failure_reason && <span class="muted small"> {p.failure_reason}</span>}
          </td>
          <td>
            <code class="reference">{p.id}</code>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
