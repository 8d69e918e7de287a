// A new agent: a name and a starting configuration (a template). The rest is edited on its settings.
import { useState } from "preact/hooks";
import type { AgentWithSecret, Provider } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { Field } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { TEMPLATES } from "./templates.ts";

export async function allProviders(): Promise<Provider[]> {
  const providers: Provider[] = [];
  for await (const provider of session.client.providers.list({ limit: 100 })) providers.push(provider);
  return providers;
}

export function CreateAgent({ onCreated, onCancel }: { onCreated: (agent: AgentWithSecret) => void; onCancel: () => void }) {
  const [name, setName] = useState("");
  const [template, setTemplate] = useState(TEMPLATES[0].id);
  const [providers] = useLoad(allProviders, []);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    const chosen = TEMPLATES.find((t) => t.id === template)!;
    const llm = providers.status === "ready" ? providers.data.find((p) => p.capabilities.includes("llm") && p.kind === "openai-compatible") : undefined;
    await action.run(async () => onCreated(await session.client.agents.create({ ...chosen.config(llm), name })));
  };
  const fields = action.problem?.fields ?? {};
  const brainError = Object.entries(fields).find(([field]) => field.startsWith("brain"))?.[1];
  return (
    <form class="panel agents-create" onSubmit={submit} noValidate aria-labelledby="new-agent-title">
      <h2 id="new-agent-title">New agent</h2>
      <ProblemNotice problem={action.problem} />
      <Field label="Name" name="name" required autoFocus hint="Callers do not hear it; it names the agent here." value={name} error={fields.name} onInput={(e) => setName(e.currentTarget.value)} />
      <fieldset class="agents-templates">
        <legend>Start from</legend>
        {TEMPLATES.map((each) => (
          <label key={each.id} class={template === each.id ? "agents-template chosen" : "agents-template"}>
            <input type="radio" name="template" value={each.id} checked={template === each.id} onChange={() => setTemplate(each.id)} />
            <span>
              <strong>{each.label}</strong>
              <span class="muted small agents-template-text">{each.description}</span>
            </span>
          </label>
        ))}
        {brainError && <p class="field-error">The template's brain: {brainError}. Add a provider connection first, or start from another template.</p>}
      </fieldset>
      <FormActions submit="Create agent" busy={action.busy} busyLabel="Creating…" onCancel={onCancel} />
    </form>
  );
}
