// Changing a carrier connection: its name, its settings (a cleared one is removed) and its secrets, which
// are write-only: each shows its masked value, and an empty field replaces it only when filled in.
import { useId, useState } from "preact/hooks";
import type { CarrierConnection, CarrierConnectionUpdate } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { filled, KINDS, type KindField } from "./carrier-kinds.ts";
import { KindFields } from "./kind-fields.tsx";

const text = (value: unknown) => (value === undefined || value === null ? "" : typeof value === "string" ? value : String(value));

/** "Password" → "password", "API key" stays as it is. */
const lowerFirst = (label: string) => (/^[A-Z][a-z]/.test(label) ? label[0].toLowerCase() + label.slice(1) : label);

export function EditCarrier({ carrier, onSaved, onCancel }: { carrier: CarrierConnection; onSaved: (carrier: CarrierConnection) => void; onCancel: () => void }) {
  const id = useId();
  const spec = KINDS.find((each) => each.value === carrier.kind) ?? { settings: [], credentials: [] };
  const initial = Object.fromEntries(spec.settings.map((field) => [field.name, text(carrier.settings[field.name])]));
  const [name, setName] = useState(carrier.name);
  const [settings, setSettings] = useState<Record<string, string>>(initial);
  const [credentials, setCredentials] = useState<Record<string, string>>({});
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const submit = (event: Event) => {
    event.preventDefault();
    const update: CarrierConnectionUpdate = {};
    if (name.trim() !== carrier.name) update.name = name;
    const changed = spec.settings.filter((field) => (settings[field.name] ?? "").trim() !== initial[field.name]);
    if (changed.length) {
      const values = filled(changed, settings);
      update.settings = Object.fromEntries(changed.map((field) => [field.name, values[field.name] ?? null]));
    }
    const secrets = filled(spec.credentials, credentials) as Record<string, string>;
    if (Object.keys(secrets).length) update.credentials = secrets;
    void action.run(async () => onSaved(await session.client.carriers.update(carrier.id, update)));
  };
  const secretField = (field: KindField) => {
    const masked = carrier.credentials[field.name];
    return { label: `New ${lowerFirst(field.label)}`, hint: masked ? `Now ${masked}; left empty, it stays.` : "None set; left empty, there is none." };
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Edit “{carrier.name}”</h2>
      <p class="muted small">
        A {carrier.kind} connection; the kind cannot change. A SIP trunk restarts with the new settings.
      </p>
      <ProblemNotice problem={action.problem} />
      <Field label="Name" name="name" required autoFocus value={name} error={fields.name} onInput={(e) => setName(e.currentTarget.value)} />
      {spec.settings.length > 0 && <KindFields group="settings" list={spec.settings} values={settings} onChange={setSettings} errors={fields} />}
      {spec.credentials.length > 0 && <KindFields group="credentials" list={spec.credentials} values={credentials} onChange={setCredentials} errors={fields} describe={secretField} />}
      <FormActions submit="Save changes" busyLabel="Saving…" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
