// The form for a new endpoint (URL, events, description), and its signing secret, shown once.
import { useState } from "preact/hooks";
import type { WebhookEndpointCreate, WebhookEndpointWithSecret } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { SecretOnce } from "../../ui/secret-once.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

type EventType = WebhookEndpointCreate["events"][number];

const EVENTS: { type: EventType; about: string }[] = [
  { type: "call.completed", about: "a call ended normally, with its transcript and extracted fields" },
  { type: "call.transferred", about: "a call was handed to a person" },
  { type: "call.failed", about: "a call could not be placed or broke off" },
  { type: "campaign.completed", about: "a campaign called everyone it could, with its counts" },
  { type: "payment.succeeded", about: "the wallet was topped up" },
];

export function CreateEndpoint({ onCreated, onCancel }: { onCreated: (endpoint: WebhookEndpointWithSecret) => void; onCancel: () => void }) {
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [events, setEvents] = useState<EventType[]>(["call.completed"]);
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const toggle = (type: EventType, on: boolean) => setEvents(on ? [...events, type] : events.filter((each) => each !== type));
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => onCreated(await session.client.webhooks.create({ url, events, description: description || undefined })));
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="new-endpoint-title">
      <h2 id="new-endpoint-title">New webhook endpoint</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="URL" name="url" type="url" required autoFocus value={url} placeholder="https://example.com/parley" hint="Where the events are POSTed." error={fields.url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <fieldset class={fields.events ? "ops-fieldset invalid" : "ops-fieldset"} aria-describedby={fields.events ? "endpoint-events-error" : undefined}>
        <legend>Events</legend>
        {EVENTS.map((each) => (
          <label key={each.type} class="ops-check">
            <input type="checkbox" name="events" checked={events.includes(each.type)} onChange={(e) => toggle(each.type, e.currentTarget.checked)} />
            <span>
              <code>{each.type}</code> <span class="muted small">{each.about}</span>
            </span>
          </label>
        ))}
        {fields.events && (
          <p class="field-error" id="endpoint-events-error">
            {fields.events}
          </p>
        )}
      </fieldset>
      <Field label="Description" name="description" value={description} hint="Optional: what receives them." error={fields.description} onInput={(e) => setDescription(e.currentTarget.value)} />
      <FormActions submit="Add endpoint" busyLabel="Adding…" busy={action.busy} onCancel={onCancel} />
    </form>
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
