// A labelled control with its hint and error: an error (from a problem's errors[]) marks the control
// invalid and is read out with it.
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";

interface FieldProps {
  label: string;
  name: string;
  /** What is wrong, in words; it may carry a way out (a link). */
  error?: ComponentChildren;
  hint?: string;
  children?: ComponentChildren;
}

interface InputProps extends FieldProps {
  value: string;
  onInput: (event: { currentTarget: HTMLInputElement }) => void;
  type?: "text" | "email" | "password" | "number" | "url" | "color" | "datetime-local" | "tel" | "time";
  autocomplete?: string;
  min?: number;
  max?: number;
  step?: number | "any";
  placeholder?: string;
  required?: boolean;
  autoFocus?: boolean;
}

function Described({ id, hint, error }: { id: string; hint?: string; error?: ComponentChildren }) {
  return (
    <>
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
      {error && <p class="field-error" id={`${id}-error`}>{error}</p>}
    </>
  );
}

function describedBy(id: string, hint?: string, error?: ComponentChildren): string | undefined {
  return [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(" ") || undefined;
}

export function Field({ label, name, error, hint, type = "text", ...input }: InputProps) {
  const id = useId();
  // Preact types each input type on its own; these three take the same attributes.
  const inputType = type as "text";
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      <input id={id} name={name} type={inputType} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy(id, hint, error)} {...input} />
      <Described id={id} hint={hint} error={error} />
    </div>
  );
}

type SelectProps = FieldProps & { value: string; onChange: (value: string) => void; options: { value: string; label: string }[] };

export function SelectField({ label, name, error, hint, value, onChange, options }: SelectProps) {
  const id = useId();
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      <select id={id} name={name} value={value} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy(id, hint, error)} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map((option) => (
          <option key={option.value} value={option.value}>{option.label}</option>
        ))}
      </select>
      <Described id={id} hint={hint} error={error} />
    </div>
  );
}

type TextAreaProps = FieldProps & { value: string; onInput: (event: { currentTarget: HTMLTextAreaElement }) => void; rows?: number; required?: boolean };

/** A multi-line text (a prompt, a message), labelled and described like <Field>. */
export function TextAreaField({ label, name, error, hint, rows = 4, ...input }: TextAreaProps) {
  const id = useId();
  return (
    <div class={error ? "field invalid" : "field"}>
      <label for={id}>{label}</label>
      <textarea id={id} name={name} rows={rows} aria-invalid={error ? "true" : undefined} aria-describedby={describedBy(id, hint, error)} {...input} />
      <Described id={id} hint={hint} error={error} />
    </div>
  );
}
