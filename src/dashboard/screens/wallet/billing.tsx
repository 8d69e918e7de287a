// Billing: the wallet's balance, a top-up (by card through Stripe Checkout, or a request the operator
// settles), the automatic recharge, and the payments. Stripe Checkout sends the payer back here with
// ?payment=txn_…&result=success|canceled, and the payment's state is shown until it leaves pending.
// Payments are read 25 at a time, newest first, with "Load more".
import type { Payment, Wallet } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { formatMicros, formatMinor } from "../../lib/money.ts";
import { session } from "../../lib/session.ts";
import { useLoad, type Loaded } from "../../lib/use-load.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, Loading, ProblemNotice } from "../../ui/status.tsx";
import { PagedList, usePages } from "../../ui/paged.tsx";
import { AutoRecharge } from "./auto-recharge.tsx";
import { PaymentReturn } from "./payment-return.tsx";
import { TopUp } from "./top-up.tsx";
import { WalletTabs } from "./wallet-tabs.tsx";

const KINDS: Record<Payment["kind"], string> = { topup: "Top-up", auto_recharge: "Automatic recharge", credit: "Credit from the operator" };
export const PAYMENT_STATES: Record<Payment["status"], string> = { pending: "Pending", succeeded: "Succeeded", failed: "Failed", expired: "Expired" };

export function Billing({ query }: { query: URLSearchParams }) {
  const [wallet, reloadWallet] = useLoad(() => session.client.wallet.get(), []);
  const payments = usePages((cursor) => session.client.payments.list({ limit: 25, cursor }), []);
  const reloadPayments = payments.reload;
  const paymentId = query.get("payment");
  const changed = () => {
    reloadWallet();
    reloadPayments();
  };
  return (
    <>
      <PageHeader title="Billing" description="Your balance pays for calls and phone numbers. Top up by card, or ask for an invoice." />
      <WalletTabs />
      {paymentId && <PaymentReturn key={paymentId} id={paymentId} result={query.get("result")} onSettled={changed} />}
      <Balance wallet={wallet} onRetry={reloadWallet} />
      {wallet.status === "ready" && (
        <div class="billing-grid">
          <TopUp currency={wallet.data.currency} onRequested={reloadPayments} />
          <AutoRecharge />
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

function Balance({ wallet, onRetry }: { wallet: Loaded<Wallet>; onRetry: () => void }) {
  if (wallet.status === "loading") return <Loading label="Loading the balance…" />;
  if (wallet.status === "failed") return <ProblemNotice problem={wallet.problem} onRetry={onRetry} />;
  const low = wallet.data.balance <= 0;
  return (
    <section class="panel billing-balance" aria-labelledby="balance-title">
      <h2 id="balance-title">Balance</h2>
      <p class={low ? "billing-amount status-bad" : "billing-amount"} data-testid="balance">
        {formatMicros(wallet.data.balance, wallet.data.currency)}
      </p>
      <p class="muted small">
        {low ? "Calls are refused until you top up. " : ""}Updated {formatDate(wallet.data.updated_at)}
      </p>
    </section>
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
            <code>{p.id}</code>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
