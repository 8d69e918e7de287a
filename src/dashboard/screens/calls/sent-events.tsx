// The webhook events sent about a call, of both channels: the event log filtered by the call.
import type { Call, Event } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { Loading, ProblemNotice } from "../../ui/status.tsx";

async function eventsOf(call: Call): Promise<Event[]> {
  const found: Event[] = [];
  for await (const event of session.client.webhooks.listEvents({ call_id: call.id, limit: 100 })) found.push(event);
  return found.reverse();
}

/** `refresh` changes when the call has news (its timeline grew): the events are read again. */
export function SentEvents({ call, refresh }: { call: Call; refresh: unknown }) {
  const [events, reload] = useLoad(() => eventsOf(call), [call.id, refresh, call.status, call.extracted === null]);
  if (events.status === "loading") return <Loading label="Loading the events…" />;
  if (events.status === "failed") return <ProblemNotice problem={events.problem} onRetry={reload} />;
  const list = events.data;
  return (
    <>
      {list.length === 0 ? (
        <p class="muted">No webhook events were sent about this call.</p>
      ) : (
        <ol class="calls-sent">
          {list.map((event) => (
            <li key={event.id}>
              <details>
                <summary>
                  <code>{event.type}</code> <span class="muted small">{formatDate(event.created_at)} · {event.channel === "agent" ? "to the agent's webhook" : "to the workspace's endpoints"}</span>
                </summary>
                <pre class="calls-json" tabIndex={0} aria-label={`Payload of ${event.type}`}>{JSON.stringify(event.payload, null, 2)}</pre>
              </details>
            </li>
          ))}
        </ol>
      )}
    </>
  );
}
