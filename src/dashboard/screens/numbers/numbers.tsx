// Phone numbers: buy one from a carrier's inventory or import your own, assign each to the agent that
// answers it (and calls from it), change its label and inbound settings, and release it after confirming.
import { useState } from "preact/hooks";
import type { Agent, PhoneNumber } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState, ProblemNotice, Success } from "../../ui/status.tsx";
import { AddNumber } from "./add-number.tsx";
import { EditNumber } from "./edit-number.tsx";
import { agentName, allAgents, allNumbers } from "./workspace-lists.ts";
import { DangerButton } from "../../ui/actions.tsx";

export function Numbers() {
  const [numbers, reload] = useLoad(allNumbers, []);
  const [agents] = useLoad(allAgents, []);
  const [adding, setAdding] = useState<"buy" | "import" | null>(null);
  const [editing, setEditing] = useState<PhoneNumber | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const action = useAction();
  const confirm = useConfirm();
  const known = agents.status === "ready" ? agents.data : [];
  const changed = (message: string) => {
    setDone(message);
    reload();
  };
  const release = async (number: PhoneNumber) => {
    const ok = await confirm.ask({
      title: `Release ${number.number}?`,
      message: "The number goes back to its carrier: calls to it stop reaching your agents, and you may not get it back. The month begun is not refunded.",
      action: "Release number",
    });
    if (!ok || !(await action.run(() => session.client.phoneNumbers.release(number.id)))) return;
    if (editing?.id === number.id) setEditing(null);
    changed(`${number.number} was released.`);
  };
  const assign = async (number: PhoneNumber, agentId: string) => {
    const done = await action.run(async () => {
      if (agentId) await session.client.phoneNumbers.assign(number.id, { agent_id: agentId });
      else await session.client.phoneNumbers.unassign(number.id);
    });
    if (done) changed(agentId ? `${number.number} now goes to ${agentName(known, agentId)}.` : `${number.number} has no agent now.`);
  };
  return (
    <>
      <PageHeader title="Phone numbers" description="Numbers your agents answer and call from. Buy one from a carrier, or import one you already have.">
        <button type="button" class="button primary" onClick={() => (setAdding("buy"), setEditing(null), setDone(null))}>
          Buy a number
        </button>
        <button type="button" class="button secondary" onClick={() => (setAdding("import"), setEditing(null), setDone(null))}>
          Import a number
        </button>
      </PageHeader>
      {adding && (
        <AddNumber
          key={adding}
          mode={adding}
          onCancel={() => setAdding(null)}
          onAdded={(number) => {
            setAdding(null);
            changed(`${number.number} is yours. Assign it to an agent to answer its calls.`);
          }}
        />
      )}
      {editing && (
        <EditNumber
          key={editing.id}
          number={editing}
          onCancel={() => setEditing(null)}
          onSaved={(number) => {
            setEditing(null);
            changed(`Saved the changes to ${number.number}.`);
          }}
        />
      )}
      {done && <Success>{done}</Success>}
      <ProblemNotice problem={action.problem} />
      <LoadState state={numbers} label="Loading numbers…" onRetry={reload} />
      {numbers.status === "ready" && numbers.data.length === 0 && !adding && (
        <Empty title="No phone numbers yet">
          <p>Buy a number (the simulated carrier's are free, for trying things out) or import one from your carrier.</p>
        </Empty>
      )}
      {numbers.status === "ready" && numbers.data.length > 0 && (
        <DataTable caption="Phone numbers" columns={["Number", "Label", "Carrier", "Agent", "Inbound", "Added", null]}>
          {numbers.data.map((number) => (
            <tr key={number.id}>
              <th scope="row">
                <code>{number.number}</code>
              </th>
              <td>{number.label ?? "—"}</td>
              <td>{number.carrier}</td>
              <td>
                <AgentPicker number={number} agents={known} busy={action.busy} onAssign={(agentId) => assign(number, agentId)} />
              </td>
              <td>
                {number.inbound.enabled ? "Answered" : <span class="status-bad">Rejected</span>}
                <VariableCount count={Object.keys(number.inbound.variables).length} />
              </td>
              <td>{formatDate(number.created_at)}</td>
              <td class="row-actions">
                <button type="button" class="button ghost" disabled={action.busy} aria-label={`Edit ${number.number}`} onClick={() => (setEditing(number), setAdding(null), setDone(null))}>
                  Edit
                </button>
                <DangerButton label={`Release ${number.number}`} disabled={action.busy} onClick={() => release(number)}>Release</DangerButton>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {confirm.dialog}
    </>
  );
}

function VariableCount({ count }: { count: number }) {
  if (!count) return null;
  return <div class="muted small">{count === 1 ? "1 variable" : `${count} variables`}</div>;
}

/** The agent a number goes to: pick one, then assign (a select alone would act on every arrow key). */
function AgentPicker({ number, agents, busy, onAssign }: { number: PhoneNumber; agents: Agent[]; busy: boolean; onAssign: (agentId: string) => void }) {
  const [agentId, setAgentId] = useState(number.agent_id ?? "");
  const id = `agent-of-${number.id}`;
  return (
    <form
      class="ops-inline"
      onSubmit={(event) => {
        event.preventDefault();
        onAssign(agentId);
      }}
    >
      <label for={id} class="visually-hidden">
        Agent for {number.number}
      </label>
      <select id={id} name="agent_id" value={agentId} onChange={(e) => setAgentId(e.currentTarget.value)}>
        <option value="">No agent</option>
        {agents.map((agent) => (
          <option key={agent.id} value={agent.id}>
            {agent.name}
          </option>
        ))}
      </select>
      {/* "Unassign" only when there is an agent to take away: with none assigned, "No agent" has nothing to do. */}
      <button type="submit" class="button secondary" disabled={busy || agentId === (number.agent_id ?? "")}>
        {agentId || !number.agent_id ? "Assign" : "Unassign"}
      </button>
    </form>
  );
}
