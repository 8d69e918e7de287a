// A new key's secret, shown this once with a copy button.
import type { ApiKeyWithSecret } from "../../../sdk/ts/src/index.ts";
import { CopyButton } from "../../ui/copy-button.tsx";

export function NewSecret({ created, onDone }: { created: ApiKeyWithSecret; onDone: () => void }) {
  return (
    <section class="panel highlight" aria-labelledby="secret-title">
      <h2 id="secret-title">Your new key “{created.name}”</h2>
      <p>Copy the secret now and keep it somewhere safe: it is shown only this once. If you lose it, create another key.</p>
      <div class="secret-row">
        <label for="new-secret" class="visually-hidden">
          Secret of {created.name}
        </label>
        <input id="new-secret" class="secret" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={created.key} label="Copy secret" />
      </div>
      <div class="actions">
        <button type="button" class="button primary" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </section>
  );
}
