// Changing a number's label and what its inbound calls do: whether they are taken at all, and the
// {{variables}} each starts with (the list sent replaces the number's variables).
import { useId, useState } from "preact/hooks";
import type { PhoneNumber } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

interface Variable {
  key: number;
  name: string;
  text: string;
  /** The value as the API has it, kept as it is while its text is untouched (a number stays a number). */
  original?: unknown;
}

const shown = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

export function EditNumber({ number, onSaved, onCancel }: { number: PhoneNumber; onSaved: (number: PhoneNumber) => void; onCancel: () => void }) {
  const id = useId();
  const [label, setLabel] = useState(number.label ?? "");
  const [enabled, setEnabled] = useState(number.inbound.enabled);
  const [variables, setVariables] = useState<Variable[]>(() => Object.entries(number.inbound.variables).map(([name, value], key) => ({ key, name, text: shown(value), original: value })));
  const [nextKey, setNextKey] = useState(variables.length);
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const variablesError = fields["inbound.variables"];
  const change = (key: number, part: Partial<Variable>) => setVariables(variables.map((each) => (each.key === key ? { ...each, ...part } : each)));
  const add = () => {
    setVariables([...variables, { key: nextKey, name: "", text: "" }]);
    setNextKey(nextKey + 1);
  };
  const submit = (event: Event) => {
    event.preventDefault();
    const values = Object.fromEntries(variables.filter((each) => each.name.trim()).map((each) => [each.name.trim(), each.original !== undefined && each.text === shown(each.original) ? each.original : each.text]));
    void action.run(async () => onSaved(await session.client.phoneNumbers.update(number.id, { label: label.trim() || null, inbound: { enabled, variables: values } })));
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Edit {number.number}</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="Label" name="label" autoFocus value={label} hint="Optional, up to 100 characters, e.g. “Support line”." error={fields.label} onInput={(e) => setLabel(e.currentTarget.value)} />
      <fieldset class="ops-fieldset">
        <legend>Inbound calls</legend>
        <label class="ops-check">
          <input type="checkbox" name="inbound.enabled" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
          <span>
            Answer inbound calls <span class="muted small">when off, calls to this number are rejected even with an agent assigned</span>
          </span>
        </label>
        {fields["inbound.enabled"] && <p class="field-error">{fields["inbound.enabled"]}</p>}
      </fieldset>
      <fieldset class={variablesError ? "ops-fieldset invalid" : "ops-fieldset"} aria-describedby={`${id}-variables-hint${variablesError ? ` ${id}-variables-error` : ""}`}>
        <legend>Variables</legend>
        <p class="hint" id={`${id}-variables-hint`}>
          Every inbound call on this number starts with these, for the agent's {"{{name}}"} placeholders. A variable without a name is left out.
        </p>
        {variables.map((each, index) => (
          <div key={each.key} class="numbers-variable">
            <Field label={`Variable ${index + 1} name`} name={`variables.${index}.name`} value={each.name} placeholder="department" onInput={(e) => change(each.key, { name: e.currentTarget.value })} />
            <Field label={`Variable ${index + 1} value`} name={`variables.${index}.value`} value={each.text} placeholder="sales" onInput={(e) => change(each.key, { text: e.currentTarget.value })} />
            <button type="button" class="button ghost" aria-label={`Remove variable ${index + 1}`} onClick={() => setVariables(variables.filter((other) => other.key !== each.key))}>
              Remove
            </button>
          </div>
        ))}
        <p>
          <button type="button" class="button secondary" onClick={add}>
            Add a variable
          </button>
        </p>
        {variablesError && (
          <p class="field-error" id={`${id}-variables-error`}>
            {variablesError}
          </p>
        )}
      </fieldset>
      <FormActions submit="Save changes" busyLabel="Saving…" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
