// The audit log: who did what with which credential, newest first, filtered by API key (?key=…) so a
// key rotation can be followed: the old key's requests stop, the new one's begin.
import { useState } from "preact/hooks";
import type { AuditEntry } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { navigate, withQuery } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { DataTable } from "../../ui/data-table.tsx";
import { SelectField } from "../../ui/field.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState } from "../../ui/status.tsx";
import { allKeys } from "../api-keys/api-keys.tsx";

const PAGE_SIZE = 50;

interface Entries {
  data: AuditEntry[];
  next: string | null;
}

export function AuditLog({ query }: { query: URLSearchParams }) {
  const keyId = query.get("key") ?? "";
  const [keys] = useLoad(allKeys, []);
  const [more, setMore] = useState<Entries>({ data: [], next: null });
  const [entries, reload] = useLoad(async () => {
    const page = await session.client.auditLog.list({ limit: PAGE_SIZE, key_id: keyId || undefined });
    setMore({ data: [], next: page.next_cursor });
    return page.data;
  }, [keyId]);
  const [loadingMore, setLoadingMore] = useState(false);
  const loadMore = async () => {
    setLoadingMore(true);
    try {
      const page = await session.client.auditLog.list({ limit: PAGE_SIZE, key_id: keyId || undefined, cursor: more.next! });
      setMore({ data: [...more.data, ...page.data], next: page.next_cursor });
    } finally {
      setLoadingMore(false);
    }
  };
  const known = keys.status === "ready" ? keys.data : [];
  const options = [{ value: "", label: "All requests" }, ...known.map((key) => ({ value: key.id, label: `${key.name} (${key.redacted_key})` }))];
  if (keyId && !known.some((key) => key.id === keyId)) options.push({ value: keyId, label: `${keyId} (revoked or unknown)` });
  return (
    <>
      <PageHeader title="Audit log" description="Every request that changed something or used an API key: who, with which key, from where." />
      <div class="filters">
        <SelectField label="API key" name="key" value={keyId} options={options} onChange={(value) => navigate(withQuery(PAGES.auditLog, { key: value }), { replace: true })} />
      </div>
      <LoadState state={entries} label="Loading the audit log…" onRetry={reload} />
      {entries.status === "ready" && entries.data.length === 0 && (
        <Empty title={keyId ? "No requests with this key" : "Nothing recorded yet"}>
          <p>{keyId ? "Nothing has used this key yet (or not within the log's retention)." : "Requests that change something, and every request made with an API key, appear here."}</p>
        </Empty>
      )}
      {entries.status === "ready" && entries.data.length > 0 && <EntryTable entries={[...entries.data, ...more.data]} />}
      {entries.status === "ready" && more.next && (
        <button type="button" class="button secondary" disabled={loadingMore} onClick={loadMore}>
          {loadingMore ? "Loading…" : "Load more"}
        </button>
      )}
    </>
  );
}

function EntryTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <DataTable caption="Audit log entries" columns={["Time", "Actor", "Action", "Request", "Status", "IP"]}>
      {entries.map((entry) => (
        <tr key={entry.id}>
          <td>{formatDate(entry.created_at)}</td>
          <td>
            <span class="badge">{entry.actor_type === "api_key" ? "key" : entry.actor_type}</span> <code>{entry.actor_id ?? "—"}</code>
          </td>
          <td>{entry.action}</td>
          <td>
            <code>
              {entry.method} {entry.path}
            </code>
          </td>
          <td class={entry.status >= 400 ? "status-bad" : "status-ok"}>{entry.status}</td>
          <td>{entry.ip ?? "—"}</td>
        </tr>
      ))}
    </DataTable>
  );
}
