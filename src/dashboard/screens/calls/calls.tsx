// Calls: newest first, a page at a time (keyset cursors, so a busy workspace pages as fast as a quiet one),
// filtered by status, direction, agent, number and dates (kept in the URL, so a filtered list is a link);
// while a call on the page is live the page reloads every 2 s.
import { useState } from "preact/hooks";
import type { Agent, Call, ListCallsQuery } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { formatMicros } from "../../lib/money.ts";
import { navigate, withQuery } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useInterval } from "../../lib/use-interval.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState } from "../../ui/status.tsx";
import { CALL_STATUSES, counterpart, formatClock, isLive, statusLabel } from "./call-text.ts";
import { PlaceCall } from "./place-call.tsx";

const PAGE_SIZE = 25;
const FILTERS = ["status", "direction", "agent_id", "number", "from", "to"] as const;
type Filters = Partial<Record<(typeof FILTERS)[number], string>>;

export const callPath = (id: string) => PAGES.call.replace(":id", encodeURIComponent(id));

/** The API's query from the URL's: dates (YYYY-MM-DD, the person's day) become instants. */
function apiQuery(filters: Filters, cursor: string | null): ListCallsQuery {
  const day = (value: string | undefined, next: boolean) => {
    if (!value) return undefined;
    const date = new Date(`${value}T00:00:00`);
    if (next) date.setDate(date.getDate() + 1);
    return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
  };
  return {
    limit: PAGE_SIZE,
    cursor: cursor ?? undefined,
    status: (filters.status || undefined) as ListCallsQuery["status"],
    direction: (filters.direction || undefined) as ListCallsQuery["direction"],
    agent_id: filters.agent_id || undefined,
    number: filters.number?.trim() || undefined,
    from: day(filters.from, false),
    to: day(filters.to, true), // the end day is included
  };
}

async function allAgents(): Promise<Agent[]> {
  const agents: Agent[] = [];
  for await (const agent of session.client.agents.list({ limit: 100 })) agents.push(agent);
  return agents;
}

export function Calls({ query }: { query: URLSearchParams }) {
  const filters: Filters = Object.fromEntries(FILTERS.map((name) => [name, query.get(name) ?? ""]));
  const key = FILTERS.map((name) => filters[name]).join("|");
  // The cursors of the pages before this one, to go back; reset by a new filter.
  const [cursors, setCursors] = useState<{ key: string; stack: (string | null)[] }>({ key, stack: [null] });
  const stack = cursors.key === key ? cursors.stack : [null];
  const cursor = stack[stack.length - 1];
  const [page, reload] = useLoad(async () => await session.client.calls.list(apiQuery(filters, cursor)), [key, cursor]);
  const [agents] = useLoad(allAgents, []);
  const live = page.status === "ready" && page.data.data.some(isLive);
  useInterval(reload, live ? 2000 : null);
  const agentName = (id: string) => (agents.status === "ready" ? agents.data.find((a) => a.id === id)?.name : undefined) ?? id;
  const filtered = FILTERS.some((name) => filters[name]);
  // ?place=1 (the getting-started link) opens the form.
  const [placing, setPlacing] = useState(query.get("place") === "1");
  const agentList = agents.status === "ready" ? agents.data : [];
  return (
    <>
      <PageHeader title="Calls" description="Every call your agents made or answered: open one for its recording, transcript, timeline and the events sent.">
        {!placing && agentList.length > 0 && (
          <button type="button" class="button primary" onClick={() => setPlacing(true)}>
            Place a call
          </button>
        )}
      </PageHeader>
      {placing && agentList.length > 0 && <PlaceCall agents={agentList} onCancel={() => setPlacing(false)} onPlaced={(call) => navigate(callPath(call.id))} />}
      <CallFilters filters={filters} agents={agents.status === "ready" ? agents.data : []} />
      <LoadState state={page} label="Loading calls…" onRetry={reload} />
      {page.status === "ready" && page.data.data.length === 0 && (
        <Empty title={filtered ? "No calls match these filters" : "No calls yet"}>
          <p>{filtered ? "Try a wider date range or clear a filter." : "Calls appear here as soon as an agent places or answers one."}</p>
        </Empty>
      )}
      {page.status === "ready" && page.data.data.length > 0 && (
        <>
          <CallTable calls={page.data.data} agentName={agentName} />
          <nav class="calls-pager" aria-label="Pages of calls">
            <button type="button" class="button secondary" disabled={stack.length < 2} onClick={() => setCursors({ key, stack: stack.slice(0, -1) })}>
              Newer
            </button>
            <span class="muted small">Page {stack.length}</span>
            <button type="button" class="button secondary" disabled={!page.data.has_more} onClick={() => setCursors({ key, stack: [...stack, page.data.next_cursor] })}>
              Older
            </button>
          </nav>
        </>
      )}
    </>
  );
}

function CallFilters({ filters, agents }: { filters: Filters; agents: Agent[] }) {
  const set = (name: keyof Filters, value: string) => navigate(withQuery(PAGES.calls, { ...filters, [name]: value }), { replace: true });
  const [number, setNumber] = useState(filters.number ?? "");
  return (
    <form
      class="calls-filters"
      aria-label="Filter calls"
      onSubmit={(e) => {
        e.preventDefault();
        set("number", number);
      }}
    >
      <div class="field">
        <label for="calls-status">Status</label>
        <select id="calls-status" name="status" value={filters.status} onChange={(e) => set("status", e.currentTarget.value)}>
          <option value="">Any status</option>
          {CALL_STATUSES.map((status) => (
            <option key={status} value={status}>{statusLabel(status)}</option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="calls-direction">Direction</label>
        <select id="calls-direction" name="direction" value={filters.direction} onChange={(e) => set("direction", e.currentTarget.value)}>
          <option value="">Any direction</option>
          <option value="inbound">Inbound</option>
          <option value="outbound">Outbound</option>
          <option value="web">Web</option>
        </select>
      </div>
      <div class="field">
        <label for="calls-agent">Agent</label>
        <select id="calls-agent" name="agent_id" value={filters.agent_id} onChange={(e) => set("agent_id", e.currentTarget.value)}>
          <option value="">Any agent</option>
          {agents.map((agent) => (
            <option key={agent.id} value={agent.id}>{agent.name}</option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="calls-number">Number</label>
        <input id="calls-number" name="number" type="search" inputMode="tel" placeholder="+14155550100" value={number} onInput={(e) => setNumber(e.currentTarget.value)} onBlur={() => number !== (filters.number ?? "") && set("number", number)} />
      </div>
      <div class="field">
        <label for="calls-from">From</label>
        <input id="calls-from" name="from" type="date" value={filters.from} onChange={(e) => set("from", e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for="calls-to">To</label>
        <input id="calls-to" name="to" type="date" value={filters.to} onChange={(e) => set("to", e.currentTarget.value)} />
      </div>
    </form>
  );
}

function CallTable({ calls, agentName }: { calls: Call[]; agentName: (id: string) => string }) {
  return (
    <DataTable caption="Calls" columns={["Call", "Direction", "Agent", "Status", "Duration", "Cost", "Started"]}>
      {calls.map((call) => (
        <tr key={call.id}>
          <th scope="row">
            <Link href={callPath(call.id)} aria-label={`Call ${call.direction === "inbound" ? "from" : "to"} ${counterpart(call)}, ${formatDate(call.created_at)}`}>
              {counterpart(call)}
            </Link>
          </th>
          <td>{call.direction}</td>
          <td>{agentName(call.agent_id)}</td>
          <td><CallStatus call={call} /></td>
          <td>{formatClock(call.duration_ms)}</td>
          <td>{formatMicros(call.cost.total, call.cost.currency)}</td>
          <td>{formatDate(call.started_at ?? call.created_at)}</td>
        </tr>
      ))}
    </DataTable>
  );
}

export function CallStatus({ call }: { call: Call }) {
  const tone = isLive(call) ? "live" : call.status === "completed" || call.status === "transferred" ? "done" : "bad";
  return <span class={`calls-status ${tone}`}>{statusLabel(call.status)}</span>;
}
