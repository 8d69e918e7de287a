// The case's expectations, each with the fields of its kind: what the agent says (contains, a regular
// expression, or a rubric a model judges), a tool called with arguments, an extracted field, how the
// call ends, a transfer, at most N turns, latency and silence bounds, a model caller's goal.
import { useState } from "preact/hooks";
import type { Agent, Provider } from "../../../../sdk/ts/src/index.ts";
import type { Expectation } from "./api.ts";
import { EXPECTATION_KINDS } from "./case-draft.ts";
import { Field, SelectField, TextAreaField } from "../../../ui/field.tsx";
import { Check, errorUnder, NumberField, type Errors } from "../form-kit.tsx";

const SAYS_MODES = [
  { value: "contains", label: "Contains the words" },
  { value: "regex", label: "Matches a regular expression" },
  { value: "rubric", label: "Meets a rubric (judged by a model)" },
];

export function ExpectationList({ expectations, onChange, errors, agent, providers }: { expectations: Expectation[]; onChange: (list: Expectation[]) => void; errors: Errors; agent: Agent; providers: Provider[] }) {
  const set = (i: number, next: Expectation) => onChange(expectations.map((e, j) => (j === i ? next : e)));
  return (
    <>
      {expectations.length === 0 && <p class="hint">No expectations: the case passes whenever the call runs to its end.</p>}
      {expectations.map((expectation, i) => {
        const at = `expectations[${i}]`;
        return (
          <fieldset key={i} class="agents-node tests-expectation">
            <legend>Expectation {i + 1}</legend>
            {errors[at] && <p class="field-error">{errors[at]}</p>}
            <SelectField label="Kind" name={`${at}.type`} value={expectation.type} onChange={(type) => set(i, EXPECTATION_KINDS.find((k) => k.value === type)!.fresh())} options={EXPECTATION_KINDS.map((k) => ({ value: k.value, label: k.label }))} />
            <ExpectationFields at={at} expectation={expectation} onChange={(next) => set(i, next)} errors={errors} agent={agent} providers={providers} />
            <button type="button" class="button danger-ghost" aria-label={`Remove expectation ${i + 1}`} onClick={() => onChange(expectations.filter((_, j) => j !== i))}>
              Remove
            </button>
          </fieldset>
        );
      })}
      <button type="button" class="button secondary agents-inline" onClick={() => onChange([...expectations, EXPECTATION_KINDS[0].fresh()])}>
        Add an expectation
      </button>
    </>
  );
}

interface FieldsProps {
  at: string;
  expectation: Expectation;
  onChange: (next: Expectation) => void;
  errors: Errors;
  agent: Agent;
  providers: Provider[];
}

function ExpectationFields({ at, expectation: e, onChange, errors, agent, providers }: FieldsProps) {
  const put = (part: Record<string, unknown>) => onChange({ ...e, ...part });
  const text = (field: string, label: string, hint?: string) => <Field label={label} name={`${at}.${field}`} hint={hint} value={String(e[field] ?? "")} error={errors[`${at}.${field}`]} onInput={(ev) => put({ [field]: ev.currentTarget.value || undefined })} />;
  const number = (field: string, label: string, hint?: string) => <NumberField label={label} name={`${at}.${field}`} hint={hint} min={0} value={e[field] as number | undefined} errors={errors} onChange={(value) => put({ [field]: value })} />;
  const not = <Check name={`${at}.not`} checked={!!e.not} onChange={(on) => put({ not: on || undefined })}>Pass only when this does NOT happen</Check>;
  switch (e.type) {
    case "agent_says": {
      const mode = SAYS_MODES.find((m) => m.value in e)?.value ?? "contains";
      const judges = providers.filter((p) => p.capabilities.includes("llm"));
      return (
        <>
          <div class="agents-grid">
            {number("turn", "Agent turn", "0 is the greeting; empty: any turn")}
            <SelectField label="Check" name={`${at}.mode`} value={mode} onChange={(next) => onChange({ type: "agent_says", turn: e.turn, not: e.not, [next]: e[mode] ?? "" })} options={SAYS_MODES} />
          </div>
          {mode === "rubric" ? (
            <>
              <TextAreaField label="Rubric" name={`${at}.rubric`} rows={2} value={String(e.rubric ?? "")} error={errors[`${at}.rubric`]} onInput={(ev) => put({ rubric: ev.currentTarget.value })} />
              <SelectField label="Judged by" name={`${at}.judge_provider_id`} value={String(e.judge_provider_id ?? "")} error={errors[`${at}.judge_provider_id`]} onChange={(id) => put({ judge_provider_id: id || undefined })} options={[{ value: "", label: "— choose a connection —" }, ...judges.map((p) => ({ value: p.id, label: p.name }))]} />
            </>
          ) : (
            <Field label={mode === "regex" ? "Regular expression" : "Words"} name={`${at}.${mode}`} value={String(e[mode] ?? "")} error={errors[`${at}.${mode}`]} onInput={(ev) => put({ [mode]: ev.currentTarget.value })} />
          )}
          {not}
        </>
      );
    }
    case "tool_called":
      return (
        <>
          <div class="agents-grid">
            {text("tool", "Tool (name or id)")}
            {number("times", "Exactly this many times", "Empty: at least once")}
          </div>
          <JsonField label="With arguments (JSON object)" name={`${at}.arguments`} value={e.arguments} object error={errorUnder(errors, `${at}.arguments`)} onChange={(args) => put({ arguments: args })} />
          {not}
        </>
      );
    case "extracted":
      return (
        <div class="agents-grid">
          {agent.extraction.length ? (
            <SelectField label="Field" name={`${at}.field`} value={String(e.field ?? "")} error={errors[`${at}.field`]} onChange={(field) => put({ field })} options={[{ value: "", label: "— choose a field —" }, ...agent.extraction.map((f) => ({ value: f.name, label: f.name }))]} />
          ) : (
            text("field", "Field")
          )}
          <JsonField label="Equals" name={`${at}.equals`} hint="Text, or a JSON value (42, true)" value={e.equals} error={errors[`${at}.equals`]} onChange={(equals) => put({ equals })} />
        </div>
      );
    case "ended":
      return <div class="agents-grid">{text("status", "Status", "completed, transferred, failed…")}{text("end_reason", "End reason", "agent_hangup, customer_hangup…")}</div>;
    case "transferred":
      return text("to", "Transferred to", "E.164 number or SIP URI");
    case "max_turns":
      return number("turns", "At most this many agent turns");
    case "latency":
      return <div class="agents-grid">{number("max_ms", "Each reply within (ms)", "From the caller's last words to the agent's first sound")}{number("turn", "Agent turn", "Empty: every turn")}</div>;
    case "max_silence":
      return number("max_ms", "No silence longer than (ms)");
    case "goal_reached":
      return not;
    default:
      return <p class="hint">Edit this expectation in the JSON view.</p>;
  }
}

/**
 * A JSON value typed as text; a text that is not JSON is a plain string, unless `object` asks for an
 * object. The text is kept as typed and the value follows it while it reads.
 */
function JsonField({ label, name, hint, value, object, error, onChange }: { label: string; name: string; hint?: string; value: unknown; object?: boolean; error?: string; onChange: (value: unknown) => void }) {
  const shown = (v: unknown) => (v === undefined ? "" : typeof v === "string" && !object ? v : JSON.stringify(v));
  const [text, setText] = useState(shown(value));
  const [bad, setBad] = useState(false);
  const input = (next: string) => {
    setText(next);
    if (!next.trim()) return setBad(false), onChange(object ? undefined : "");
    try {
      const parsed: unknown = JSON.parse(next);
      const wrong = object && (!parsed || typeof parsed !== "object" || Array.isArray(parsed));
      setBad(!!wrong);
      if (!wrong) onChange(parsed);
    } catch {
      setBad(!!object);
      if (!object) onChange(next);
    }
  };
  return <Field label={label} name={name} hint={hint} value={text} error={bad ? 'Write a JSON object, e.g. {"order_id": "A-17"}.' : error} onInput={(ev) => input(ev.currentTarget.value)} />;
}
