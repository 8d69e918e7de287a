// A secret the server shows this once (a key, a signing secret): read-only, selected on focus, with a
// copy button, and a button to say it is stored.
import type { ComponentChildren } from "preact";
import { useId } from "preact/hooks";
import { CopyButton } from "./copy-button.tsx";

export function SecretOnce({ title, label, secret, onDone, children }: { title: string; label: string; secret: string; onDone: () => void; children: ComponentChildren }) {
  const id = useId();
  return (
    <section class="panel highlight" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{title}</h2>
      {children}
      <div class="secret-row">
        <label for={`${id}-secret`} class="visually-hidden">
          {label}
        </label>
        <input id={`${id}-secret`} class="secret" readOnly value={secret} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={secret} label="Copy secret" />
      </div>
      <div class="actions">
        <button type="button" class="button primary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
