// A carrier kind's settings or secrets as form fields, named `settings.<name>` / `credentials.<name>` as the
// API's errors[] names them.
import { Field } from "../../ui/field.tsx";
import type { KindField } from "./carrier-kinds.ts";

interface KindFieldsProps {
  group: "settings" | "credentials";
  list: KindField[];
  values: Record<string, string>;
  onChange: (values: Record<string, string>) => void;
  /** The problem's errors[], by field name. */
  errors: Record<string, string>;
  /** How each field is labelled and described (by default its own label and hint). */
  describe?: (field: KindField) => { label: string; hint?: string };
}

export function KindFields({ group, list, values, onChange, errors, describe = (field) => field }: KindFieldsProps) {
  return (
    <fieldset class="ops-fieldset">
      <legend>{group === "settings" ? "Settings" : "Secrets"}</legend>
      {list.map((field) => {
        const { label, hint } = describe(field);
        return (
          <Field
            key={field.name}
            label={label}
            name={`${group}.${field.name}`}
            type={field.secret ? "password" : field.number ? "number" : "text"}
            autocomplete={field.secret ? "new-password" : "off"}
            hint={hint}
            value={values[field.name] ?? ""}
            error={errors[`${group}.${field.name}`]}
            onInput={(e) => onChange({ ...values, [field.name]: e.currentTarget.value })}
          />
        );
      })}
    </fieldset>
  );
}
