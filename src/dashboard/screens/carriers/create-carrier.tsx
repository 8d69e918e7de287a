// The form for a new carrier connection: a name, a kind, and that kind's settings and secrets.
import { useState } from "preact/hooks";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, SelectField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { filled, KINDS, type CarrierKind } from "./carrier-kinds.ts";
import { KindFields } from "./kind-fields.tsx";

export function CreateCarrier({ onCreated, onCancel }: { onCreated: () => void; onCancel: () => void }) {
  const [name, setName] = useState("");
  const [kind, setKind] = useState<CarrierKind>("sip");
  const [settings, setSettings] = useState<Record<string, string>>({});
  const [credentials, setCredentials] = useState<Record<string, string>>({});
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const spec = KINDS.find((each) => each.value === kind)!;
  const submit = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(async () => {
      await session.client.carriers.create({ name, kind, settings: filled(spec.settings, settings), credentials: filled(spec.credentials, credentials) as Record<string, string> });
    });
    if (ok) onCreated();
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="new-carrier-title">
      <h2 id="new-carrier-title">New carrier connection</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="Name" name="name" required autoFocus value={name} hint="E.g. “Office PBX”." error={fields.name} onInput={(e) => setName(e.currentTarget.value)} />
      <SelectField label="Kind" name="kind" value={kind} onChange={(value) => setKind(value as CarrierKind)} options={KINDS} error={fields.kind} />
      {spec.settings.length > 0 && <KindFields key={`${kind}-settings`} group="settings" list={spec.settings} values={settings} onChange={setSettings} errors={fields} />}
      {spec.credentials.length > 0 && <KindFields key={`${kind}-credentials`} group="credentials" list={spec.credentials} values={credentials} onChange={setCredentials} errors={fields} />}
      <FormActions submit="Add connection" busyLabel="Adding…" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
