// A campaign's settings as read-only facts, with the button that opens their editor (draft or paused only).
import type { Campaign } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { DAYS, OUTCOMES } from "./campaign-settings.tsx";

function hours(window: Campaign["window"]): string {
  if (!window) return "Any time";
  const days = window.days.map((day) => DAYS[day - 1]).join(", ");
  return `${days}, ${window.start}–${window.end} (${window.timezone}${window.contact_timezone ? ", or the contact's own zone" : ""})`;
}

function retries(retry: Campaign["retry"]): string {
  if (retry.max_attempts <= 1 || retry.on.length === 0) return "No retries";
  return `Up to ${retry.max_attempts} attempts, ${retry.delay_minutes} min apart, after ${retry.on.map((on) => OUTCOMES.find((o) => o.value === on)?.label.toLowerCase() ?? on).join(", ")}`;
}

export function SettingsSummary({ campaign, onEdit }: { campaign: Campaign; onEdit?: () => void }) {
  const facts: [string, string][] = [
    ["Pace", `${campaign.concurrency} at once, ${campaign.calls_per_minute} a minute at most`],
    ["Calling hours", hours(campaign.window)],
    ["Retries", retries(campaign.retry)],
    ["Dialing from", formatDate(campaign.start_at, "When started")],
    ["Dialing until", formatDate(campaign.end_at, "Every contact is done")],
    ["Default country", campaign.default_country],
    ["Do-not-call list", campaign.do_not_call.length ? `${campaign.do_not_call.length} numbers` : "Empty"],
  ];
  return (
    <section class="panel ops-wide" aria-labelledby="settings-title">
      <h2 id="settings-title">Settings</h2>
      <dl class="campaigns-facts">
        {facts.map(([term, value]) => (
          <div key={term}>
            <dt>{term}</dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
      {onEdit && (
        <div class="actions">
          <button type="button" class="button secondary" onClick={onEdit}>
            Edit settings
          </button>
        </div>
      )}
    </section>
  );
}
