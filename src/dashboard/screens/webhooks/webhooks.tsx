// Webhook endpoints: add one (its signing secret shown once), change its URL, events or description,
// send a test event, rotate the secret, disable or enable it, delete it after confirming; each with its
// health (failures, circuit breaker).
import { useState } from "preact/hooks";
import type { WebhookEndpoint, WebhookEndpointWithSecret, WebhookTestResult } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Empty, LoadState, ProblemNotice, Success } from "../../ui/status.tsx";
import { CreateEndpoint, EndpointSecret } from "./create-endpoint.tsx";
import { EditEndpoint } from "./edit-endpoint.tsx";
import { WebhooksFrame } from "./webhooks-frame.tsx";
import { DangerButton } from "../../ui/actions.tsx";

export const allEndpoints = () => session.client.webhooks.list({ limit: 100 }).all();

export function Webhooks() {
  const [endpoints, reload] = useLoad(allEndpoints, []);
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<WebhookEndpoint | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [secret, setSecret] = useState<{ endpoint: WebhookEndpointWithSecret; rotated: boolean } | null>(null);
  const [tested, setTested] = useState<{ url: string; result: WebhookTestResult } | null>(null);
  const action = useAction();
  const confirm = useConfirm();
  const run = async (work: () => Promise<void>) => {
    setTested(null);
    setSaved(null);
    if (await action.run(work)) reload();
  };
  const test = (endpoint: WebhookEndpoint) => run(async () => setTested({ url: endpoint.url, result: await session.client.webhooks.test(endpoint.id) }));
  const rotate = async (endpoint: WebhookEndpoint) => {
    const ok = await confirm.ask({ title: "Rotate the signing secret?", message: `${endpoint.url} gets a new secret, shown once. The old one keeps signing beside it for 24 hours: put the new one in place before then.`, action: "Rotate secret" });
    if (ok) await run(async () => setSecret({ endpoint: await session.client.webhooks.rotateSecret(endpoint.id), rotated: true }));
  };
  const toggle = async (endpoint: WebhookEndpoint) => {
    const disabling = endpoint.status === "enabled";
    if (disabling && !(await confirm.ask({ title: "Disable this endpoint?", message: `${endpoint.url} stops receiving events until it is enabled again.`, action: "Disable endpoint" }))) return;
    await run(async () => void (await session.client.webhooks.update(endpoint.id, { status: disabling ? "disabled" : "enabled" })));
  };
  const remove = async (endpoint: WebhookEndpoint) => {
    const ok = await confirm.ask({ title: "Delete this endpoint?", message: `${endpoint.url} receives nothing more; deliveries still waiting for it are discarded.`, action: "Delete endpoint" });
    if (!ok) return;
    if (editing?.id === endpoint.id) setEditing(null);
    await run(() => session.client.webhooks.delete(endpoint.id));
  };
  const edit = (endpoint: WebhookEndpoint) => {
    setSaved(null);
    setCreating(false);
    setEditing(endpoint);
  };
  const actions = !creating && !editing && !secret && (
    <button type="button" class="button primary" onClick={() => (setCreating(true), setSaved(null))}>
      New endpoint
    </button>
  );
  return (
    <WebhooksFrame current={PAGES.webhooks} actions={actions}>
      {creating && (
        <CreateEndpoint
          onCancel={() => setCreating(false)}
          onCreated={(endpoint) => {
            setCreating(false);
            setSecret({ endpoint, rotated: false });
            reload();
          }}
        />
      )}
      {editing && (
        <EditEndpoint
          key={editing.id}
          endpoint={editing}
          onCancel={() => setEditing(null)}
          onSaved={(endpoint) => {
            setEditing(null);
            setSaved(`Saved the changes to ${endpoint.url}.`);
            reload();
          }}
        />
      )}
      {saved && <Success>{saved}</Success>}
      {secret && <EndpointSecret endpoint={secret.endpoint} rotated={secret.rotated} onDone={() => setSecret(null)} />}
      <ProblemNotice problem={action.problem} />
      {tested && <TestOutcome url={tested.url} result={tested.result} />}
      <LoadState state={endpoints} label="Loading endpoints…" onRetry={reload} />
      {endpoints.status === "ready" && endpoints.data.length === 0 && (
        <Empty title="No endpoints yet">
          <p>Add the HTTPS URL of a server of yours and choose the events it should hear about.</p>
        </Empty>
      )}
      {endpoints.status === "ready" && endpoints.data.length > 0 && (
        <DataTable caption="Webhook endpoints" columns={["URL", "Events", "Status", "Health", null]}>
          {endpoints.data.map((endpoint) => (
            <tr key={endpoint.id}>
              <th scope="row">
                <code>{endpoint.url}</code>
                {endpoint.description && <div class="muted small">{endpoint.description}</div>}
              </th>
              <td>{endpoint.events.join(", ")}</td>
              <td>
                <span class={`badge ops-status-${endpoint.status}`}>{endpoint.status}</span>
                {endpoint.disabled_reason && <div class="muted small">{endpoint.disabled_reason}</div>}
              </td>
              <td>
                <Health endpoint={endpoint} />
              </td>
              <td class="row-actions">
                <button type="button" class="button ghost" disabled={action.busy} aria-label={`Edit ${endpoint.url}`} onClick={() => edit(endpoint)}>
                  Edit
                </button>
                <button type="button" class="button ghost" disabled={action.busy || endpoint.status === "disabled"} aria-label={`Send test to ${endpoint.url}`} onClick={() => test(endpoint)}>
                  Send test
                </button>
                <button type="button" class="button ghost" disabled={action.busy} aria-label={`Rotate secret of ${endpoint.url}`} onClick={() => rotate(endpoint)}>
                  Rotate secret
                </button>
                <button type="button" class="button ghost" disabled={action.busy} aria-label={`${endpoint.status === "enabled" ? "Disable" : "Enable"} ${endpoint.url}`} onClick={() => toggle(endpoint)}>
                  {endpoint.status === "enabled" ? "Disable" : "Enable"}
                </button>
                <DangerButton label={`Delete ${endpoint.url}`} disabled={action.busy} onClick={() => remove(endpoint)}>Delete</DangerButton>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {confirm.dialog}
    </WebhooksFrame>
  );
}

function Health({ endpoint }: { endpoint: WebhookEndpoint }) {
  const { health } = endpoint;
  if (health.consecutive_failures === 0) return <span>Healthy</span>;
  return (
    <span class="status-bad">
      {health.consecutive_failures} failures in a row
      {health.failing_since && <span class="muted small"> since {formatDate(health.failing_since)}</span>}
      {health.breaker === "open" && <div class="small">Paused until {formatDate(health.breaker_open_until)}</div>}
    </span>
  );
}

function TestOutcome({ url, result }: { url: string; result: WebhookTestResult }) {
  const attempt = result.attempt;
  if (attempt?.succeeded) return <Success>Test event delivered to {url}: HTTP {attempt.status_code} in {attempt.duration_ms} ms.</Success>;
  const why = attempt ? (attempt.status_code ? `HTTP ${attempt.status_code}` : attempt.error) : "no answer yet";
  return (
    <div class="notice error" role="alert">
      <p>
        The test event to {url} failed ({why}). It is retried on the usual schedule: see Deliveries and Failed.
      </p>
      {attempt?.response_excerpt && <pre class="ops-excerpt">{attempt.response_excerpt}</pre>}
    </div>
  );
}
