// Carrier connections: the built-in simulated carrier, and SIP trunks, Twilio and Telnyx accounts added
// with their secrets (stored sealed, shown masked), their state and the URLs to configure at the carrier;
// each renamed, its settings changed or its secrets replaced, or removed after confirming.
import { useState } from "preact/hooks";
import type { CarrierConnection } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { LoadState, ProblemNotice, Success } from "../../ui/status.tsx";
import { CreateCarrier } from "./create-carrier.tsx";
import { EditCarrier } from "./edit-carrier.tsx";
import { DangerButton, OpenButton } from "../../ui/actions.tsx";

const allCarriers = () => session.client.carriers.list({ limit: 100 }).all();

const BAD_STATES = new Set(["unreachable", "failed"]);

export function Carriers() {
  const [carriers, reload] = useLoad(allCarriers, []);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<CarrierConnection | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const action = useAction();
  const confirm = useConfirm();
  const remove = async (carrier: CarrierConnection) => {
    const ok = await confirm.ask({ title: `Remove “${carrier.name}”?`, message: "Its secrets are deleted and its calls stop. A connection that still has numbers cannot be removed: release them first.", action: "Remove connection" });
    if (!ok || !(await action.run(() => session.client.carriers.delete(carrier.id)))) return;
    if (editing?.id === carrier.id) setEditing(null);
    reload();
  };
  return (
    <>
      <PageHeader title="Carrier connections" description="How calls reach the phone network. Secrets are stored encrypted and never shown again, only their last four characters.">
        <OpenButton open={creating || editing !== null} onOpen={() => (setCreating(true), setSaved(null))}>
          New connection
        </OpenButton>
      </PageHeader>
      {creating && (
        <CreateCarrier
          onCancel={() => setCreating(false)}
          onCreated={() => {
            setCreating(false);
            reload();
          }}
        />
      )}
      {editing && (
        <EditCarrier
          key={editing.id}
          carrier={editing}
          onCancel={() => setEditing(null)}
          onSaved={(carrier) => {
            setEditing(null);
            setSaved(`Saved the changes to “${carrier.name}”.`);
            reload();
          }}
        />
      )}
      {saved && <Success>{saved}</Success>}
      <ProblemNotice problem={action.problem} />
      <LoadState state={carriers} label="Loading connections…" onRetry={reload} />
      {carriers.status === "ready" && (
        <DataTable caption="Carrier connections" columns={["Name", "Kind", "State", "Settings", "Secrets", null]}>
          {carriers.data.map((carrier) => (
            <tr key={carrier.id}>
              <th scope="row">
                {carrier.name}
                {carrier.built_in && <span class="badge">built in</span>}
                <div class="muted small">
                  <code>{carrier.id}</code>
                </div>
              </th>
              <td>{carrier.kind}</td>
              <td class={BAD_STATES.has(carrier.status.state) ? "status-bad" : undefined}>
                {carrier.status.state}
                {carrier.status.detail && <div class="muted small">{carrier.status.detail}</div>}
              </td>
              <td>
                <Pairs values={carrier.settings} />
                {Object.entries(carrier.callback_urls).map(([name, url]) => (
                  <div key={name} class="small">
                    {name}: <code>{url}</code>
                  </div>
                ))}
              </td>
              <td>
                <Pairs values={carrier.credentials} />
              </td>
              <td class="row-actions">
                {!carrier.built_in && (
                  <button type="button" class="button ghost" disabled={action.busy} aria-label={`Edit ${carrier.name}`} onClick={() => (setEditing(carrier), setCreating(false), setSaved(null))}>
                    Edit
                  </button>
                )}
                {!carrier.built_in && (
                  <DangerButton label={`Remove ${carrier.name}`} disabled={action.busy} onClick={() => remove(carrier)}>Remove</DangerButton>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {confirm.dialog}
    </>
  );
}

function Pairs({ values }: { values: Record<string, unknown> }) {
  const entries = Object.entries(values);
  if (!entries.length) return <span class="muted">—</span>;
  return (
    <dl class="ops-pairs">
      {entries.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>
            <code>{typeof value === "string" ? value : JSON.stringify(value)}</code>
          </dd>
        </div>
      ))}
    </dl>
  );
}
