// Changing an endpoint's URL, events or description; only what changed is sent (an unchanged URL is not
// checked again). Its secret and status have their own buttons.
import type { WebhookEndpoint, WebhookEndpointUpdate } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { EndpointForm, type EndpointValues } from "./endpoint-form.tsx";

function changes(endpoint: WebhookEndpoint, values: EndpointValues): WebhookEndpointUpdate {
  const update: WebhookEndpointUpdate = {};
  if (values.url !== endpoint.url) update.url = values.url;
  if ([...values.events].sort().join() !== [...endpoint.events].sort().join()) update.events = values.events;
  if (values.description.trim() !== (endpoint.description ?? "")) update.description = values.description.trim() || null;
  return update;
}

export function EditEndpoint({ endpoint, onSaved, onCancel }: { endpoint: WebhookEndpoint; onSaved: (endpoint: WebhookEndpoint) => void; onCancel: () => void }) {
  return (
    <EndpointForm
      title={`Edit ${endpoint.url}`}
      initial={{ url: endpoint.url, events: endpoint.events, description: endpoint.description ?? "" }}
      submit="Save changes"
      busyLabel="Saving…"
      onCancel={onCancel}
      save={async (values) => onSaved(await session.client.webhooks.update(endpoint.id, changes(endpoint, values)))}
    />
  );
}
