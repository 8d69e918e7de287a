// The balance, and what it means on this instance: its operator's prices decide whether anything is
// refused at zero (an instance without prices charges nothing, whatever the balance).
import type { Pricing, Wallet } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { formatMicros } from "../../lib/money.ts";
import { PRICE_RATES, rateOf, type PriceRate } from "../../lib/price-rates.ts";
import type { Loaded } from "../../lib/use-load.ts";
import { Loading, ProblemNotice } from "../../ui/status.tsx";

/** The rates in force that cost anything. */
const pricedRates = (pricing: Pricing): (PriceRate & { amount: number })[] =>
  PRICE_RATES.map((rate) => ({ ...rate, amount: rateOf(pricing.current, rate.path) })).filter((rate) => rate.amount > 0);

/** What the balance means for calls and numbers, in a sentence; `refused` when something is refused at this balance. */
function balanceMeaning(balance: number, priced: { per: "minute" | "month" }[]): { text: string; refused: boolean } {
  const callsCost = priced.some((rate) => rate.per === "minute");
  const numbersCost = priced.some((rate) => rate.per === "month");
  if (!callsCost && !numbersCost) return { text: "Calls and phone numbers are free on this instance: nothing is charged, whatever the balance.", refused: false };
  if (balance > 0) return { text: "Calls and numbers with a price below are paid from this balance; a call ends when the balance runs out.", refused: false };
  if (!callsCost) return { text: "Calls are free on this instance. New phone numbers, which have a monthly price, are refused until you top up.", refused: true };
  if (!numbersCost) return { text: "Calls with a price below are refused until you top up; free ones still start. Phone numbers are free.", refused: true };
  return { text: "Calls and numbers with a price below are refused until you top up; free ones still start.", refused: true };
}

export function Balance({ wallet, pricing, onRetry }: { wallet: Loaded<Wallet>; pricing: Loaded<Pricing>; onRetry: () => void }) {
  if (wallet.status === "loading" || pricing.status === "loading") return <Loading label="Loading the balance…" />;
  if (wallet.status === "failed") return <ProblemNotice problem={wallet.problem} onRetry={onRetry} />;
  if (pricing.status === "failed") return <ProblemNotice problem={pricing.problem} onRetry={onRetry} />;
  const { balance, currency } = wallet.data;
  const priced = pricedRates(pricing.data);
  const meaning = balanceMeaning(balance, priced);
  const next = pricing.data.upcoming[0];
  return (
    <section class="panel billing-balance" aria-labelledby="balance-title">
      <h2 id="balance-title">Balance</h2>
      <p class={meaning.refused ? "billing-amount status-bad" : "billing-amount"} data-testid="balance">
        {formatMicros(balance, currency)}
      </p>
      <p class={meaning.refused ? "billing-meaning status-bad" : "billing-meaning"} data-testid="balance-meaning">
        {meaning.text}
      </p>
      {priced.length > 0 && (
        <ul class="billing-prices" aria-label="Prices on this instance">
          {priced.map((rate) => (
            <li key={rate.path}>
              {rate.label}: {formatMicros(rate.amount, currency, { precise: true })} a {rate.per}
            </li>
          ))}
        </ul>
      )}
      {next?.effective_at && <p class="small">New prices apply from {formatDate(next.effective_at)}.</p>}
      <p class="muted small">Updated {formatDate(wallet.data.updated_at)}</p>
    </section>
  );
}
