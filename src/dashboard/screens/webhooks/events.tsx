// The event log: every event the workspace produced, with the exact body its receivers got.
import type { Event } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { Empty } from "../../ui/status.tsx";
import { PagedList, usePages } from "../../ui/paged.tsx";
import { WebhooksFrame } from "./webhooks-frame.tsx";

export function WebhookEvents() {
  const pages = usePages((cursor) => session.client.webhooks.listEvents({ limit: 50, cursor }), []);
  return (
    <WebhooksFrame current={PAGES.webhookEvents}>
      <PagedList pages={pages} what="events" empty={<Empty title="No events yet"><p>Calls, campaigns and payments produce events as they happen.</p></Empty>}>
        {(events) => <EventTable events={events} />}
      </PagedList>
    </WebhooksFrame>
  );
}

function EventTable({ events }: { events: Event[] }) {
  return (
    <DataTable caption="Events" columns={["Time", "Type", "Channel", "Body"]}>
      {events.map((event) => (
        <tr key={event.id}>
          <td>{formatDate(event.created_at)}</td>
          <th scope="row">
            {event.type}
            <div class="muted small">
              <code>{event.id}</code>
            </div>
          </th>
          <td>{event.channel}</td>
          <td>
            <details>
              <summary>Show</summary>
              <pre class="ops-excerpt">{JSON.stringify(event.payload, null, 2)}</pre>
            </details>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
