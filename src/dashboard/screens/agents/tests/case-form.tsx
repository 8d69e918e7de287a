// The form for a case's common parts: its name, the scripted caller, where the call comes from, the
// agent's variables, the expectations and the time limit. A model-played caller and tool mocks are
// edited in the JSON view (case-editor.tsx).
import type { Agent, Provider } from "../../../../sdk/ts/src/index.ts";
import type { TestCaseInput } from "./api.ts";
import { ExpectationList } from "./expectation-fields.tsx";
import { ScriptTurns } from "./script-turns.tsx";
import { Field, SelectField, TextAreaField } from "../../../ui/field.tsx";
import { errorUnder, jsonObject, NumberField, type Errors } from "../form-kit.tsx";

export interface CaseFormProps {
  draft: TestCaseInput;
  onChange: (draft: TestCaseInput) => void;
  /** The variables as typed (a JSON object), kept apart while they do not read. */
  variables: string;
  onVariables: (text: string) => void;
  errors: Errors;
  agent: Agent;
  providers: Provider[];
}

export function CaseForm({ draft, onChange, variables, onVariables, errors, agent, providers }: CaseFormProps) {
  const set = (part: Partial<TestCaseInput>) => onChange({ ...draft, ...part });
  const caller = draft.caller;
  return (
    <>
      <fieldset class="agents-section">
        <legend>Case</legend>
        <Field label="Name" name="name" value={draft.name} error={errors.name} onInput={(e) => set({ name: e.currentTarget.value })} />
        <Field label="Description" name="description" value={draft.description ?? ""} error={errors.description} onInput={(e) => set({ description: e.currentTarget.value || undefined })} />
      </fieldset>
      <fieldset class="agents-section">
        <legend>The caller</legend>
        {errors.caller && <p class="field-error">{errors.caller}</p>}
        {caller.type === "script" ? (
          <ScriptTurns turns={caller.turns} errors={errors} onChange={(turns) => set({ caller: { type: "script", turns } })} />
        ) : (
          <p class="hint">
            This caller is played by a model ({caller.persona.slice(0, 80)}): edit it in the JSON view.
            {errorUnder(errors, "caller") && <span class="field-error"> {errorUnder(errors, "caller")}</span>}
          </p>
        )}
        <div class="agents-grid">
          <SelectField label="Channel" name="channel" value={draft.channel ?? "phone"} error={errors.channel} onChange={(channel) => set({ channel: channel as "phone" | "web" })} options={[{ value: "phone", label: "Phone call" }, { value: "web", label: "Web (browser)" }]} />
          {(draft.channel ?? "phone") === "phone" && <Field label="Caller's number" name="from" type="tel" hint="Default +15550100000" value={draft.from ?? ""} error={errors.from} onInput={(e) => set({ from: e.currentTarget.value || undefined })} />}
        </div>
        <TextAreaField label="Variables (JSON)" name="variables" rows={2} value={variables} error={jsonObject(variables.trim() || "{}") ? errorUnder(errors, "variables") : 'Write a JSON object, e.g. {"customer_name": "Ada"}.'} onInput={(e) => onVariables(e.currentTarget.value)} />
      </fieldset>
      <fieldset class="agents-section">
        <legend>Expectations</legend>
        <ExpectationList expectations={draft.expectations} errors={errors} agent={agent} providers={providers} onChange={(expectations) => set({ expectations: expectations as unknown as TestCaseInput["expectations"] })} />
      </fieldset>
      <fieldset class="agents-section">
        <legend>Limits</legend>
        <NumberField label="Time limit (s)" name="timeout_seconds" min={5} max={600} hint="The call is ended and the case fails after this long; default 120" value={draft.timeout_seconds} errors={errors} onChange={(timeout_seconds) => set({ timeout_seconds })} />
        {(draft.tool_mocks?.length ?? 0) > 0 && <p class="hint">{draft.tool_mocks!.length} tool answers are mocked (see the JSON view).</p>}
      </fieldset>
    </>
  );
}
