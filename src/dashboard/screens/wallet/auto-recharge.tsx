// The automatic recharge: below a threshold, the card saved by a Checkout payment is charged an amount.
import { useEffect, useState } from "preact/hooks";
import type { AutoRecharge as Settings } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { microsToUnits, minorDigits, parseUnits, unitsToMicros, unitsToMinor } from "../../lib/money.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { Field } from "../../ui/field.tsx";
import { Loading, ProblemNotice, Success } from "../../ui/status.tsx";

export function AutoRecharge({ cardPayments }: { cardPayments: boolean }) {
  const [settings, reload] = useLoad(() => session.client.wallet.getAutoRecharge(), []);
  return (
    <section class="panel" aria-labelledby="recharge-title">
      <h2 id="recharge-title">Automatic recharge</h2>
      {settings.status === "loading" && <Loading />}
      {settings.status === "failed" && <ProblemNotice problem={settings.problem} onRetry={reload} />}
      {/* A recharge charges a saved card: without Stripe there is none (one already on stays shown, to turn off). */}
      {settings.status === "ready" &&
        (cardPayments || settings.data.enabled ? <RechargeForm settings={settings.data} /> : <p class="small">Automatic recharges charge a saved card, and this instance takes no card payments.</p>)}
    </section>
  );
}

function RechargeForm({ settings }: { settings: Settings }) {
  const [enabled, setEnabled] = useState(settings.enabled);
  const [threshold, setThreshold] = useState(settings.threshold === null ? "10" : microsToUnits(settings.threshold));
  const [amount, setAmount] = useState(settings.amount === null ? "20" : String(settings.amount / 10 ** minorDigits(settings.currency)));
  const [saved, setSaved] = useState<Settings | null>(null);
  const action = useAction();
  useEffect(() => setSaved(null), [enabled, threshold, amount]);
  const submit = async (event: Event) => {
    event.preventDefault();
    const t = parseUnits(threshold);
    const a = parseUnits(amount);
    await action.run(async () => {
      setSaved(
        await session.client.wallet.updateAutoRecharge({
          enabled,
          ...(enabled || t !== null ? { threshold: t === null ? -1 : unitsToMicros(t) } : {}),
          ...(enabled || a !== null ? { amount: a === null ? -1 : unitsToMinor(a, settings.currency) } : {}),
        }),
      );
    });
  };
  const fields = action.problem?.fields ?? {};
  return (
    <form onSubmit={submit} noValidate>
      <p class="muted small">
        {settings.card ? `A card saved ${formatDate(settings.card.saved_at)} is charged when the balance falls below the threshold.` : "The card of your first card top-up is saved for this; until then nothing is charged."}
      </p>
      <ProblemNotice problem={action.problem} />
      {saved && <Success>Saved: automatic recharge is {saved.enabled ? "on" : "off"}.</Success>}
      <div class="field billing-check">
        <input id="recharge-enabled" type="checkbox" name="enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <label for="recharge-enabled">Recharge automatically</label>
      </div>
      <Field label={`When the balance falls below (${settings.currency})`} name="threshold" value={threshold} error={fields.threshold} onInput={(e) => setThreshold(e.currentTarget.value)} />
      <Field label={`Charge the card (${settings.currency})`} name="amount" value={amount} error={fields.amount} onInput={(e) => setAmount(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class="button secondary" disabled={action.busy}>
          {action.busy ? "Saving…" : "Save recharge"}
        </button>
      </div>
    </form>
  );
}
