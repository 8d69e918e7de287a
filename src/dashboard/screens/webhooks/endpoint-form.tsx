// An endpoint's URL, events and description: the form that adds one and the one that changes one.
import { useId, useState } from "preact/hooks";
import type { WebhookEndpointCreate } from "../../../sdk/ts/src/index.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

export type EventType = WebhookEndpointCreate["events"][number];

export interface EndpointValues {
  url: string;
  events: EventType[];
  description: string;
}

const EVENTS: { type: EventType; about: string }[] = [
  { type: "call.completed", about: "a call ended normally, with its transcript and extracted fields" },
  { type: "call.transferred", about: "a call was handed to a person" },
  { type: "call.failed", about: "a call could not be placed or broke off" },
  { type: "campaign.completed", about: "a campaign called everyone it could, with its counts" },
  { type: "payment.succeeded", about: "the wallet was topped up" },
];

interface EndpointFormProps {
  title: string;
  initial: EndpointValues;
  submit: string;
  busyLabel: string;
  /** Sends the values; a problem it throws is shown with its fields highlighted. */
  save: (values: EndpointValues) => Promise<void>;
  onCancel: () => void;
}

export function EndpointForm({ title, initial, submit, busyLabel, save, onCancel }: EndpointFormProps) {
  const id = useId();
  const [url, setUrl] = useState(initial.url);
  const [description, setDescription] = useState(initial.description);
  const [events, setEvents] = useState<EventType[]>(initial.events);
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const toggle = (type: EventType, on: boolean) => setEvents(on ? [...events, type] : events.filter((each) => each !== type));
  const send = (event: Event) => {
    event.preventDefault();
    void action.run(() => save({ url, events, description }));
  };
  return (
    <form class="panel" onSubmit={send} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="URL" name="url" type="url" required autoFocus value={url} placeholder="https://example.com/parley" hint="Where the events are POSTed." error={fields.url} onInput={(e) => setUrl(e.currentTarget.value)} />
      <fieldset class={fields.events ? "ops-fieldset invalid" : "ops-fieldset"} aria-describedby={fields.events ? `${id}-events-error` : undefined}>
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
          <p class="field-error" id={`${id}-events-error`}>
            {fields.events}
          </p>
        )}
      </fieldset>
      <Field label="Description" name="description" value={description} hint="Optional: what receives them." error={fields.description} onInput={(e) => setDescription(e.currentTarget.value)} />
      <FormActions submit={submit} busyLabel={busyLabel} busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
