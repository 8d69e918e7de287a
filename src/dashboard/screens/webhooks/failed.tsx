// Failed deliveries (dead letters): events every retry failed for. Replay sends one again with the same
// event id; its row then follows the new delivery until it is delivered or fails again.
import { useState } from "preact/hooks";
import type { WebhookDelivery } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useInterval } from "../../lib/use-interval.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { allEndpoints } from "./webhooks.tsx";
import { WebhooksFrame } from "./webhooks-frame.tsx";

const POLL_MS = 2000;

const load = async () => {
  const [failed, endpoints] = await Promise.all([session.client.webhooks.listFailed({ limit: 100 }).all(), allEndpoints()]);
  return { failed, urls: new Map(endpoints.map((endpoint) => [endpoint.id, endpoint.url])) };
};

export function WebhooksFailed() {
  const [loaded, reload] = useLoad(load, []);
  /** Replayed deliveries as last seen, by id. */
  const [replayed, setReplayed] = useState<Record<string, WebhookDelivery>>({});
  const action = useAction();
  const waiting = Object.values(replayed).filter((delivery) => delivery.state === "pending");
  useInterval(
    async () => {
      try {
        const updates = await Promise.all(waiting.map(async (delivery) => (await session.client.webhooks.getEvent(delivery.event_id)).deliveries.find((each) => each.id === delivery.id) ?? delivery));
        setReplayed((current) => ({ ...current, ...Object.fromEntries(updates.map((delivery) => [delivery.id, delivery])) }));
      } catch (error) {
        session.check(error); // the next poll tries again
      }
    },
    waiting.length ? POLL_MS : null,
  );
  const replay = (delivery: WebhookDelivery) => action.run(async () => {
    const again = await session.client.webhooks.replay(delivery.id);
    setReplayed((current) => ({ ...current, [again.id]: again }));
  });
  const refresh = () => {
    setReplayed({});
    reload();
  };
  const actions = (
    <button type="button" class="button secondary" onClick={refresh}>
      Refresh
    </button>
  );
  return (
    <WebhooksFrame current={PAGES.webhooksFailed} actions={actions}>
      <p class="muted">Deliveries that failed on every retry (the last a day after the first). Fix the receiving end, then replay them: each goes again with its original event id.</p>
      <ProblemNotice problem={action.problem} />
      <LoadState state={loaded} label="Loading failed deliveries…" onRetry={reload} />
      {loaded.status === "ready" && loaded.data.failed.length === 0 && (
        <Empty title="No failed deliveries">
          <p>Every event reached its endpoint, or is still being retried.</p>
        </Empty>
      )}
      {loaded.status === "ready" && loaded.data.failed.length > 0 && (
        <DataTable caption="Failed deliveries" columns={["Event", "Endpoint", "Attempts", "Last answer", "Failed", "State", null]}>
          {loaded.data.failed.map((dead) => {
            const delivery = replayed[dead.id] ?? dead;
            return (
              <tr key={dead.id}>
                <th scope="row">
                  {dead.event_type}
                  <div class="muted small">
                    <code>{dead.event_id}</code>
                  </div>
                </th>
                <td>
                  <code>{(dead.endpoint_id && loaded.data.urls.get(dead.endpoint_id)) ?? dead.endpoint_id ?? "agent webhook"}</code>
                </td>
                <td>{dead.attempts}</td>
                <td class="status-bad">{dead.last_status_code ?? dead.last_error ?? "—"}</td>
                <td>{formatDate(dead.failed_at, "—")}</td>
                <td>
                  <span class={`badge ops-status-${delivery.state}`} role={replayed[dead.id] ? "status" : undefined}>
                    {delivery.state}
                  </span>
                </td>
                <td class="row-actions">
                  {delivery.state === "failed" && (
                    <button type="button" class="button secondary" disabled={action.busy} aria-label={`Replay ${dead.event_type} ${dead.event_id}`} onClick={() => replay(delivery)}>
                      Replay
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </WebhooksFrame>
  );
}
