// Usage: what the wallet paid for over a period, by day (a column chart with its table), by category
// and by agent.
import { useState } from "preact/hooks";
import type { WalletUsage } from "../../../sdk/ts/src/index.ts";
import { formatMicros } from "../../lib/money.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { BarChart, ShareBar } from "../../ui/bar-chart.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState } from "../../ui/status.tsx";
import { WalletTabs } from "./wallet-tabs.tsx";

const DAY = 86_400_000;
const PERIODS = [
  { value: "7", label: "Last 7 days" },
  { value: "30", label: "Last 30 days" },
  { value: "90", label: "Last 90 days" },
];

/** A category of charge (`telephony.sip.inbound`, `number.twilio`) as people say it. */
export function describeCategory(category: string): string {
  const [family, kind, direction] = category.split(".");
  if (family === "telephony") return `Calls over ${kind}${direction ? `, ${direction}` : ""}`;
  if (family === "browser_voice") return "Browser voice";
  if (family === "speech") return kind === "provider" ? "Speech by a provider" : "Speech, built-in";
  if (family === "llm") return kind === "provider" ? "Language model by a provider" : "Language model, built-in";
  if (family === "number") return `Phone numbers (${kind})`;
  return category;
}

async function loadUsage(days: number) {
  const to = new Date(Math.ceil(Date.now() / DAY) * DAY);
  const from = new Date(to.getTime() - days * DAY);
  const [usage, agents] = await Promise.all([
    session.client.wallet.usage({ from: from.toISOString(), to: to.toISOString() }),
    // Names make the by-agent table readable; without them it shows ids.
    session.client.agents.list({ limit: 100 }).then((page) => page.data, () => []),
  ]);
  return { usage, agentNames: new Map(agents.map((a) => [a.id, a.name])) };
}

/** Every UTC day of the period, the days without spend included. */
function everyDay(usage: WalletUsage): { day: string; amount: number }[] {
  const spent = new Map(usage.by_day.map((d) => [d.day, d.amount]));
  const days: { day: string; amount: number }[] = [];
  for (let t = Date.parse(usage.from); t < Date.parse(usage.to); t += DAY) {
    const day = new Date(t).toISOString().slice(0, 10);
    days.push({ day, amount: spent.get(day) ?? 0 });
  }
  return days;
}

export function Usage() {
  const [days, setDays] = useState("30");
  const [state, reload] = useLoad(() => loadUsage(Number(days)), [days]);
  return (
    <>
      <PageHeader title="Usage" description="What your balance paid for: calls by the second in up to three categories, and phone numbers by the month." />
      <WalletTabs />
      <div class="filters">
        <SelectField label="Period" name="period" value={days} onChange={setDays} options={PERIODS} />
      </div>
      <LoadState state={state} label="Loading usage…" onRetry={reload} />
      {state.status === "ready" && <UsageReport usage={state.data.usage} agentNames={state.data.agentNames} />}
    </>
  );
}

function UsageReport({ usage, agentNames }: { usage: WalletUsage; agentNames: Map<string, string> }) {
  const money = (micros: number) => formatMicros(micros, usage.currency);
  if (usage.total === 0) return <Empty title="Nothing spent in this period">Calls and phone numbers show here once they are charged.</Empty>;
  const maxCategory = Math.max(...usage.by_category.map((c) => c.amount));
  const maxAgent = Math.max(...usage.by_agent.map((a) => a.amount));
  return (
    <>
      <p class="usage-total">
        Spent <strong>{money(usage.total)}</strong>
      </p>
      <section class="panel usage-panel" aria-labelledby="usage-days-title">
        <h2 id="usage-days-title">By day</h2>
        <BarChart title="Spend by day" labelName="Day (UTC)" valueName="Spent" columns={everyDay(usage).map((d) => ({ label: d.day, value: d.amount, shown: money(d.amount) }))} />
      </section>
      <section aria-labelledby="usage-categories-title">
        <h2 id="usage-categories-title">By category</h2>
        <DataTable caption="Spend by category" columns={["Category", "Spent", "Call time", "Share"]}>
          {usage.by_category.map((c) => (
            <tr key={c.category}>
              <th scope="row">
                {describeCategory(c.category)} <code class="muted">{c.category}</code>
              </th>
              <td>{money(c.amount)}</td>
              <td>{c.seconds ? `${Math.round(c.seconds / 60)} min` : "—"}</td>
              <td class="usage-share">
                <ShareBar value={c.amount} max={maxCategory} />
              </td>
            </tr>
          ))}
        </DataTable>
      </section>
      {usage.by_agent.length > 0 && (
        <section aria-labelledby="usage-agents-title">
          <h2 id="usage-agents-title">By agent</h2>
          <DataTable caption="Spend by agent" columns={["Agent", "Spent", "Share"]}>
            {usage.by_agent.map((a) => (
              <tr key={a.agent_id ?? "none"}>
                <th scope="row">{a.agent_id ? agentNames.get(a.agent_id) ?? a.agent_id : "No agent (phone numbers)"}</th>
                <td>{money(a.amount)}</td>
                <td class="usage-share">
                  <ShareBar value={a.amount} max={maxAgent} />
                </td>
              </tr>
            ))}
          </DataTable>
        </section>
      )}
    </>
  );
}
