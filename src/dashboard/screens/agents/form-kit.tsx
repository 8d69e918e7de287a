// Small controls the agent forms share: a number field (empty means unset), a labelled checkbox, lists
// typed as text (one item a line, or separated by commas), and JSON objects typed as text.
import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { Field, TextAreaField } from "../../ui/field.tsx";

export type Errors = Record<string, string>;

interface NumberProps {
  label: string;
  name: string;
  value: number | undefined;
  onChange: (value: number | undefined) => void;
  errors: Errors;
  hint?: string;
  min?: number;
  max?: number;
  step?: number | "any";
}

export function NumberField({ label, name, value, onChange, errors, hint, min, max, step }: NumberProps) {
  return (
    <Field
      label={label}
      name={name}
      type="number"
      min={min}
      max={max}
      step={step}
      hint={hint}
      value={value === undefined || Number.isNaN(value) ? "" : String(value)}
      error={errors[name]}
      onInput={(e) => onChange(e.currentTarget.value === "" ? undefined : Number(e.currentTarget.value))}
    />
  );
}

export function Check({ name, checked, onChange, children }: { name: string; checked: boolean; onChange: (checked: boolean) => void; children: ComponentChildren }) {
  return (
    <label class="agents-check">
      <input type="checkbox" name={name} checked={checked} onChange={(e) => onChange(e.currentTarget.checked)} />
      <span>{children}</span>
    </label>
  );
}

/** "a, b" → ["a", "b"]; lines work too. */
export const splitList = (text: string): string[] =>
  text
    .split(/[,\n]/)
    .map((item) => item.trim())
    .filter(Boolean);

/** The text as a JSON object; null when it is not JSON or not an object. */
export function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The first problem at `prefix` or under it (a list's items, an object's fields). */
export const errorUnder = (errors: Errors, prefix: string): string | undefined => Object.entries(errors).find(([field]) => field === prefix || field.startsWith(`${prefix}.`) || field.startsWith(`${prefix}[`))?.[1];

/**
 * A list typed as text, comma-separated (or one item a line with `lines`). The text is kept as typed, so
 * a trailing comma survives until the next item; it follows the list when that changes elsewhere.
 */
export function ListField({ label, name, value, onChange, errors, hint, lines }: { label: string; name: string; value: string[]; onChange: (value: string[]) => void; errors: Errors; hint?: string; lines?: boolean }) {
  const separator = lines ? "\n" : ", ";
  const [text, setText] = useState(value.join(separator));
  useEffect(() => {
    if (splitList(text).join("\n") !== value.join("\n")) setText(value.join(separator));
  }, [value.join("\n")]);
  const input = (next: string) => {
    setText(next);
    onChange(splitList(next));
  };
  const error = errorUnder(errors, name);
  if (lines) return <TextAreaField label={label} name={name} hint={hint} rows={3} value={text} error={error} onInput={(e) => input(e.currentTarget.value)} />;
  return <Field label={label} name={name} hint={hint} value={text} error={error} onInput={(e) => input(e.currentTarget.value)} />;
}
