// Place an outbound call: the agent, the number to call and, on the built-in simulated carrier, what the
// simulated person says (one line per turn), so a newcomer can hear an agent without a phone line.
import { useState } from "preact/hooks";
import type { Agent, Call } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { Field, SelectField, TextAreaField } from "../../ui/field.tsx";
import { FormActions } from "../../ui/form-actions.tsx";
import { ProblemNotice } from "../../ui/status.tsx";

const SAMPLE_LINES = "Hi, what are your opening hours?\nThanks, goodbye";

export function PlaceCall({ agents, onPlaced, onCancel }: { agents: Agent[]; onPlaced: (call: Call) => void; onCancel: () => void }) {
  const [agentId, setAgentId] = useState(agents[0]?.id ?? "");
  const [to, setTo] = useState("+14155550123");
  const [lines, setLines] = useState(SAMPLE_LINES);
  const action = useAction();
  const fields = action.problem?.fields ?? {};
  const submit = async (event: Event) => {
    event.preventDefault();
    const said = lines.split("\n").map((line) => line.trim()).filter(Boolean);
    await action.run(async () => onPlaced(await session.client.calls.outbound({ agent_id: agentId, to: to.trim(), ...(said.length ? { simulation: { lines: said } } : {}) })));
  };
  return (
    <form class="panel" onSubmit={submit} noValidate aria-labelledby="place-call-title">
      <h2 id="place-call-title">Place a call</h2>
      <ProblemNotice problem={action.problem} />
      <SelectField label="Agent" name="agent_id" value={agentId} onChange={setAgentId} options={agents.map((agent) => ({ value: agent.id, label: agent.name }))} error={fields.agent_id} hint="It calls from its assigned number." />
      <Field label="To" name="to" type="tel" required value={to} error={fields.to} hint="E.164, e.g. +14155550123." onInput={(e) => setTo(e.currentTarget.value)} />
      <TextAreaField
        label="What the simulated person says"
        name="simulation.lines"
        value={lines}
        error={fields["simulation.lines"] ?? fields.simulation}
        hint="Only on the built-in simulated carrier: one line per turn. Leave empty for a real call."
        onInput={(e) => setLines(e.currentTarget.value)}
      />
      <FormActions submit="Call" busy={action.busy} busyLabel="Calling…" onCancel={onCancel} />
    </form>
  );
}
