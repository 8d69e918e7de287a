// Every delivery attempt, newest first: when, where, the answer (status code or error) and how long it took.
import type { WebhookAttempt } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { navigate, withQuery } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { Empty } from "../../ui/status.tsx";
import { PagedList, usePages } from "../../ui/paged.tsx";
import { WebhooksFrame } from "./webhooks-frame.tsx";

const OUTCOMES = [
  { value: "", label: "All attempts" },
  { value: "succeeded", label: "Succeeded" },
  { value: "failed", label: "Failed" },
];

export function WebhookDeliveries({ query }: { query: URLSearchParams }) {
  const outcome = (query.get("outcome") ?? "") as "" | "succeeded" | "failed";
  const pages = usePages((cursor) => session.client.webhooks.listDeliveries({ limit: 50, cursor, outcome: outcome || undefined }), [outcome]);
  return (
    <WebhooksFrame current={PAGES.webhookDeliveries}>
      <div class="filters">
        <SelectField label="Outcome" name="outcome" value={outcome} options={OUTCOMES} onChange={(value) => navigate(withQuery(PAGES.webhookDeliveries, { outcome: value }), { replace: true })} />
      </div>
      <PagedList pages={pages} what="delivery attempts" empty={<Empty title="No delivery attempts"><p>Attempts appear here as events are sent to your endpoints.</p></Empty>}>
        {(attempts) => <AttemptTable attempts={attempts} />}
      </PagedList>
    </WebhooksFrame>
  );
}

function AttemptTable({ attempts }: { attempts: WebhookAttempt[] }) {
  return (
    <DataTable caption="Delivery attempts" columns={["Time", "URL", "Event", "Attempt", "Answer", "Time taken"]}>
      {attempts.map((attempt) => (
        <tr key={attempt.id}>
          <td>{formatDate(attempt.created_at)}</td>
          <td>
            <code>{attempt.url}</code>
          </td>
          <td>
            <code>{attempt.event_id}</code>
          </td>
          <td>{attempt.attempt}</td>
          <td class={attempt.succeeded ? undefined : "status-bad"}>
            {attempt.status_code ?? attempt.error ?? "—"}
            {attempt.response_excerpt && <div class="muted small ops-clip">{attempt.response_excerpt}</div>}
          </td>
          <td>{attempt.duration_ms} ms</td>
        </tr>
      ))}
    </DataTable>
  );
}
