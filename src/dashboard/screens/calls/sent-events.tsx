// The webhook events about a call, of both channels: the event log filtered by the call, each with where
// it went, or that it went nowhere and why (an event is logged even when no webhook wants it).
import type { Agent, Call, Event } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { Link } from "../../ui/link.tsx";
import { Loading, ProblemNotice } from "../../ui/status.tsx";
import { agentPath } from "../agents/agents.tsx";

async function eventsOf(call: Call): Promise<Event[]> {
  const found: Event[] = [];
  for await (const event of session.client.webhooks.listEvents({ call_id: call.id, limit: 100 })) found.push(event);
  return found.reverse();
}

/** Where an event went: its deliveries, or why there were none (the agent's webhook, the workspace's endpoints). */
function destination(event: Event, agent: Agent | null): string {
  if (event.channel === "agent") {
    if (event.delivery_count > 0) return "sent to the agent's webhook";
    return agent && !agent.webhook_url ? "not sent: the agent has no webhook URL" : "not sent: the agent had no webhook URL for it then";
  }
  if (event.delivery_count === 0) return "not sent: no webhook endpoint of the workspace subscribes to it";
  return event.delivery_count === 1 ? "sent to 1 webhook endpoint" : `sent to ${event.delivery_count} webhook endpoints`;
}

/** `refresh` changes when the call has news (its timeline grew): the events are read again. */
export function SentEvents({ call, agent, refresh }: { call: Call; agent: Agent | null; refresh: unknown }) {
  const [events, reload] = useLoad(() => eventsOf(call), [call.id, refresh, call.status, call.extracted === null]);
  if (events.status === "loading") return <Loading label="Loading the events…" />;
  if (events.status === "failed") return <ProblemNotice problem={events.problem} onRetry={reload} />;
  const list = events.data;
  const unsent = list.filter((event) => event.delivery_count === 0).length;
  return (
    <>
      {list.length === 0 ? (
        <p class="muted">No webhook events about this call yet.</p>
      ) : (
        <>
          <p class="hint">
            {unsent === list.length
              ? "None of these events was sent anywhere: they are kept in the event log only. "
              : "Each event says where it was sent. "}
            The call's events go to its agent's webhook URL ({agent ? <Link href={agentPath(agent.id, "webhooks")}>the agent's Webhooks tab</Link> : "the agent's Webhooks tab"}); its outcome goes to
            the workspace's endpoints (<Link href={PAGES.webhooks}>Settings → Webhooks</Link>).
          </p>
          <ol class="calls-sent">
            {list.map((event) => (
              <li key={event.id}>
                <details>
                  <summary>
                    <code>{event.type}</code> <span class="muted small">{formatDate(event.created_at)} · {destination(event, agent)}</span>
                  </summary>
                  <pre class="calls-json" tabIndex={0} aria-label={`Payload of ${event.type}`}>{JSON.stringify(event.payload, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ol>
        </>
      )}
    </>
  );
}
