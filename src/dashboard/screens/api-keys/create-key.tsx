// The form for a new key: its name and scope (and mode). The secret comes back once.
import { useState } from "preact/hooks";
import type { ApiKeyWithSecret, KeyScope } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, SelectField } from "../../ui/field.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { FormActions } from "../../ui/form-actions.tsx";

const SCOPES = [
  { value: "read-only", label: "Read-only: GET requests only" },
  { value: "write", label: "Write: create and change resources" },
  { value: "admin", label: "Admin: also keys, members and settings" },
];
const MODES = [
  { value: "live", label: "Live" },
  { value: "test", label: "Test: simulated carrier, never spends money" },
];

export function CreateKey({ onCreated, onCancel }: { onCreated: (key: ApiKeyWithSecret) => void; onCancel: () => void }) {
  const [name, setName] = useState("");
  const [scope, setScope] = useState<KeyScope>("write");
  const [mode, setMode] = useState<"live" | "test">("live");
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => onCreated(await session.client.apiKeys.create({ name, scope, mode })));
  };
  const fields = action.problem?.fields ?? {};
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="new-key-title">
      <h2 id="new-key-title">New API key</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="Name" name="name" required autoFocus hint="Where the key is used, e.g. “Production server”." value={name} error={fields.name} onInput={(e) => setName(e.currentTarget.value)} />
      <SelectField label="Scope" name="scope" value={scope} onChange={(value) => setScope(value as KeyScope)} options={SCOPES} error={fields.scope} />
      <SelectField label="Mode" name="mode" value={mode} onChange={(value) => setMode(value as "live" | "test")} options={MODES} error={fields.mode} />
      <FormActions submit="Create key" busy={action.busy} busyLabel="Creating…" onCancel={onCancel} />
    </form>
  );
}
