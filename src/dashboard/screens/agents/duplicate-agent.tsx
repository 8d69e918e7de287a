// A copy of an agent under a new name (its configuration, tools and knowledge bases; a new webhook
// signing secret, shown once on the copy's page).
import { useState } from "preact/hooks";
import type { Agent } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Dialog } from "../../ui/dialog.tsx";
import { Field } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { openCreated } from "./agents.tsx";

export function DuplicateAgent({ agent, onClose }: { agent: Agent; onClose: () => void }) {
  const [name, setName] = useState(`${agent.name} (copy)`);
  const action = useAction();
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () => openCreated(await session.client.agents.duplicate(agent.id, { name })));
  };
  return (
    <Dialog title={`Duplicate “${agent.name}”`} onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <p class="muted small">The copy starts at version 1 with the same settings, and its own webhook signing secret.</p>
        <ProblemNotice problem={action.problem} />
        <Field label="Name of the copy" name="name" required autoFocus value={name} error={action.problem?.fields.name} onInput={(e) => setName(e.currentTarget.value)} />
        <FormActions submit="Duplicate" busy={action.busy} busyLabel="Duplicating…" onCancel={onClose} />
      </form>
    </Dialog>
  );
}
