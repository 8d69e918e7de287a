// The form for a new endpoint (URL, events, description), and its signing secret, shown once.
import type { WebhookEndpointWithSecret } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { SecretOnce } from "../../ui/secret-once.tsx";
import { EndpointForm } from "./endpoint-form.tsx";

export function CreateEndpoint({ onCreated, onCancel }: { onCreated: (endpoint: WebhookEndpointWithSecret) => void; onCancel: () => void }) {
  return (
    <EndpointForm
      title="New webhook endpoint"
      initial={{ url: "", events: ["call.completed"], description: "" }}
      submit="Add endpoint"
      busyLabel="Adding…"
      onCancel={onCancel}
      save={async ({ url, events, description }) => onCreated(await session.client.webhooks.create({ url, events, description: description || undefined }))}
    />
  );
}

export function EndpointSecret({ endpoint, rotated, onDone }: { endpoint: WebhookEndpointWithSecret; rotated: boolean; onDone: () => void }) {
  return (
    <SecretOnce title={rotated ? "The new signing secret" : "The endpoint's signing secret"} label={`Signing secret of ${endpoint.url}`} secret={endpoint.secret} onDone={onDone}>
      <p>
        Requests to <code>{endpoint.url}</code> are signed with this secret: your server checks the signature with it. Copy it now: it is shown only this once.
        {rotated && " The previous secret keeps signing too for 24 hours."}
      </p>
    </SecretOnce>
  );
}
