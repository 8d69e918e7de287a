// The instance's prices: the list in force and those scheduled, and a complete new list (every rate named,
// so none is silently free) from a date on.
import { useState } from "preact/hooks";
import type { PriceList, PricingUpdate } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { formatMicros, microsToUnits, parseUnits, unitsToMicros } from "../../lib/money.ts";
import { PRICE_RATES, rateOf } from "../../lib/price-rates.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { Field } from "../../ui/field.tsx";
import { Loading, ProblemNotice, Success } from "../../ui/status.tsx";
import { OperatorOnly } from "./operator-only.tsx";

const GROUPS = [...new Set(PRICE_RATES.map((r) => r.group))];

function build(values: Record<string, string>): Omit<PricingUpdate, "effective_at"> {
  const root: any = {};
  for (const { path } of PRICE_RATES) {
    const keys = path.split(".");
    let node = root;
    for (const key of keys.slice(0, -1)) node = node[key] ??= {};
    const units = parseUnits(values[path]);
    // A rate that is no number goes as one the server refuses, so the field it names is this one.
    node[keys[keys.length - 1]] = units === null ? -1 : unitsToMicros(units);
  }
  return root;
}

export function Pricing() {
  return (
    <OperatorOnly title="Pricing" description="What tenants pay, from their wallets. Until prices are set, everything is free." path={PAGES.operatorPricing}>
      <PricingEditor />
    </OperatorOnly>
  );
}

function PricingEditor() {
  const [pricing, reload] = useLoad(() => session.client.pricing.get(), []);
  if (pricing.status === "loading") return <Loading label="Loading prices…" />;
  if (pricing.status === "failed") return <ProblemNotice problem={pricing.problem} onRetry={reload} />;
  const { current, upcoming } = pricing.data;
  return (
    <>
      <PriceTable list={current} title={current.effective_at ? `In force since ${formatDate(current.effective_at)}` : "In force: the built-in prices (everything free)"} />
      {upcoming.map((list) => (
        <PriceTable key={list.id} list={list} title={`Scheduled from ${formatDate(list.effective_at)}`} />
      ))}
      <PriceForm base={upcoming[upcoming.length - 1] ?? current} onSaved={reload} />
    </>
  );
}

function PriceTable({ list, title }: { list: PriceList; title: string }) {
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      <DataTable caption={title} columns={["Rate", "Price"]}>
        {PRICE_RATES.map((rate) => (
          <tr key={rate.path}>
            <th scope="row">
              {rate.label} <span class="muted small">({rate.group.toLowerCase()})</span>
            </th>
            <td>{formatMicros(rateOf(list, rate.path), list.currency, { precise: true })}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function PriceForm({ base, onSaved }: { base: PriceList; onSaved: () => void }) {
  const [values, setValues] = useState(() => Object.fromEntries(PRICE_RATES.map((r) => [r.path, microsToUnits(rateOf(base, r.path))])));
  const [effectiveAt, setEffectiveAt] = useState("");
  const [saved, setSaved] = useState<string | null>(null);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    const ok = await action.run(async () => {
      const result = await session.client.pricing.set({ ...build(values), ...(effectiveAt ? { effective_at: new Date(effectiveAt).toISOString() } : {}) });
      setSaved(result.upcoming.length && effectiveAt ? `Prices scheduled from ${formatDate(new Date(effectiveAt).toISOString())}.` : "Prices in force now.");
    });
    if (ok) onSaved();
  };
  const fields = action.problem?.fields ?? {};
  return (
    <form class="panel operator-prices" onSubmit={submit} noValidate aria-labelledby="new-prices-title">
      <h2 id="new-prices-title">New prices</h2>
      <p class="muted small">Amounts in {base.currency}; fractions of a cent are fine (0.013). A complete list, starting from the latest one.</p>
      <ProblemNotice problem={action.problem} />
      {saved && <Success>{saved}</Success>}
      {GROUPS.map((group) => (
        <fieldset key={group} class="operator-rates">
          <legend>{group}</legend>
          {PRICE_RATES.filter((r) => r.group === group).map((rate) => (
            <Field key={rate.path} label={rate.label} name={rate.path} value={values[rate.path]} error={fields[rate.path]} onInput={(e) => setValues({ ...values, [rate.path]: e.currentTarget.value })} />
          ))}
        </fieldset>
      ))}
      <Field label="In force from" name="effective_at" type="datetime-local" hint="Empty: now. Never in the past; charges keep the prices they were made at." value={effectiveAt} error={fields.effective_at} onInput={(e) => setEffectiveAt(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="button primary" disabled={action.busy}>
          {action.busy ? "Saving…" : "Set prices"}
        </button>
      </div>
    </form>
  );
}
