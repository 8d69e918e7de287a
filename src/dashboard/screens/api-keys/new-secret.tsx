// A new key's secret, shown this once with a copy button.
import type { ApiKeyWithSecret } from "../../../sdk/ts/src/index.ts";
import { SecretOnce } from "../../ui/secret-once.tsx";

export function NewSecret({ created, onDone }: { created: ApiKeyWithSecret; onDone: () => void }) {
  return (
    <SecretOnce title={`Your new key “${created.name}”`} label={`Secret of ${created.name}`} secret={created.key} onDone={onDone}>
      <p>Copy the secret now and keep it somewhere safe: it is shown only this once. If you lose it, create another key.</p>
    </SecretOnce>
  );
}
