// API keys: create (the secret once), list with last use, revoke after confirming, and each key's
// requests in the audit log, which is how a rotation is checked before the old key is revoked.
import { useState } from "preact/hooks";
import type { ApiKey, ApiKeyWithSecret } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { withQuery } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { CreateKey } from "./create-key.tsx";
import { NewSecret } from "./new-secret.tsx";
import { DangerButton } from "../../ui/actions.tsx";

export async function allKeys(): Promise<ApiKey[]> {
  const keys: ApiKey[] = [];
  for await (const key of session.client.apiKeys.list({ limit: 100 })) keys.push(key);
  return keys;
}

export function ApiKeys() {
  const [keys, reload] = useLoad(allKeys, []);
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<ApiKeyWithSecret | null>(null);
  const revoking = useAction();
  const confirm = useConfirm();
  const revoke = async (key: ApiKey) => {
    const ok = await confirm.ask({ title: `Revoke “${key.name}”?`, message: `Anything still using ${key.redacted_key} stops working at once. This cannot be undone.`, action: "Revoke key" });
    if (ok && (await revoking.run(() => session.client.apiKeys.revoke(key.id)))) reload();
  };
  return (
    <>
      <PageHeader title="API keys" description="Keys let your servers call the API. Each has a scope; its secret is shown once, when it is created.">
        {!creating && !created && (
          <button type="button" class="button primary" onClick={() => setCreating(true)}>
            New key
          </button>
        )}
      </PageHeader>
      {creating && (
        <CreateKey
          onCancel={() => setCreating(false)}
          onCreated={(key) => {
            setCreating(false);
            setCreated(key);
            reload();
          }}
        />
      )}
      {created && <NewSecret created={created} onDone={() => setCreated(null)} />}
      <ProblemNotice problem={revoking.problem} />
      <LoadState state={keys} label="Loading keys…" onRetry={reload} />
      {keys.status === "ready" && keys.data.length === 0 && (
        <Empty title="No API keys yet">
          <p>Create one for each server or integration, so that each can be revoked on its own.</p>
        </Empty>
      )}
      {keys.status === "ready" && keys.data.length > 0 && <KeyTable keys={keys.data} onRevoke={revoke} busy={revoking.busy} />}
      <details class="help">
        <summary>Rotating a key</summary>
        <ol>
          <li>Create a new key with the same scope, and put it where the old one is used.</li>
          <li>Open the old key's activity: once no new requests come with it, nothing uses it any more.</li>
          <li>Check the new key's activity shows the traffic, then revoke the old key.</li>
        </ol>
      </details>
      {confirm.dialog}
    </>
  );
}

function KeyTable({ keys, onRevoke, busy }: { keys: ApiKey[]; onRevoke: (key: ApiKey) => void; busy: boolean }) {
  return (
    <DataTable caption="API keys" columns={["Name", "Key", "Scope", "Created", "Last used", null]}>
      {keys.map((key) => (
        <tr key={key.id}>
          <th scope="row">{key.name}</th>
          <td><code>{key.redacted_key}</code>{key.mode === "test" && <span class="badge">test</span>}</td>
          <td>{key.scope}</td>
          <td>{formatDate(key.created_at)}</td>
          <td>{formatDate(key.last_used_at)}</td>
          <td class="row-actions">
            <Link class="button ghost" href={withQuery(PAGES.auditLog, { key: key.id })} aria-label={`Activity of ${key.name}`}>
              Activity
            </Link>
            <DangerButton label={`Revoke ${key.name}`} disabled={busy} onClick={() => onRevoke(key)}>Revoke</DangerButton>
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
