// The form for a new campaign: a name, the agent that calls, its caller id and pace. Contacts come next.
import { useState } from "preact/hooks";
import type { Campaign } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { Field, SelectField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";
import { agentOptions, allAgents, allNumbers } from "../numbers/workspace-lists.ts";

const choices = async () => {
  const [agents, numbers] = await Promise.all([allAgents(), allNumbers()]);
  return { agents, numbers };
};

export function CreateCampaign({ onCreated, onCancel }: { onCreated: (campaign: Campaign) => void; onCancel: () => void }) {
  const [lists] = useLoad(choices, []);
  const [name, setName] = useState("");
  const [agentId, setAgentId] = useState("");
  const [fromId, setFromId] = useState("");
  const [concurrency, setConcurrency] = useState("5");
  const [perMinute, setPerMinute] = useState("60");
  const [country, setCountry] = useState("US");
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const agents = lists.status === "ready" ? lists.data.agents : [];
  const numbers = lists.status === "ready" ? lists.data.numbers : [];
  const submit = async (event: Event) => {
    event.preventDefault();
    await action.run(async () =>
      onCreated(
        await session.client.campaigns.create({
          name,
          agent_id: agentId,
          from_number_id: fromId || null,
          concurrency: Number(concurrency),
          calls_per_minute: Number(perMinute),
          default_country: country.trim().toUpperCase(),
        }),
      ),
    );
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="new-campaign-title">
      <h2 id="new-campaign-title">New campaign</h2>
      <ProblemNotice problem={action.problem} />
      {lists.status === "failed" && <ProblemNotice problem={lists.problem} />}
      <Field label="Name" name="name" required autoFocus value={name} error={fields.name} onInput={(e) => setName(e.currentTarget.value)} />
      <SelectField label="Agent" name="agent_id" value={agentId} onChange={setAgentId} options={agentOptions(agents)} error={fields.agent_id} />
      <SelectField
        label="Caller id"
        name="from_number_id"
        value={fromId}
        onChange={setFromId}
        options={[{ value: "", label: "The agent's number" }, ...numbers.map((number) => ({ value: number.id, label: number.label ? `${number.number} (${number.label})` : number.number }))]}
        error={fields.from_number_id}
      />
      <div class="ops-row">
        <Field label="Simultaneous calls" name="concurrency" type="number" min={1} value={concurrency} error={fields.concurrency} onInput={(e) => setConcurrency(e.currentTarget.value)} />
        <Field label="Calls per minute" name="calls_per_minute" type="number" min={1} value={perMinute} error={fields.calls_per_minute} onInput={(e) => setPerMinute(e.currentTarget.value)} />
      </div>
      <Field label="Default country" name="default_country" value={country} hint="For numbers written without +country code (two letters)." error={fields.default_country} onInput={(e) => setCountry(e.currentTarget.value)} />
      <FormActions submit="Create campaign" busyLabel="Creating…" busy={action.busy} onCancel={onCancel} />
    </form>
  );
}
