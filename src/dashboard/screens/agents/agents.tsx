// Agents: the list, a new agent from a template (its webhook signing secret then shown once on its
// screen), and deleting one after confirming.
import { useState } from "preact/hooks";
import type { Agent, AgentWithSecret } from "../../../sdk/ts/src/index.ts";
import { formatDate } from "../../lib/format.ts";
import { navigate, withQuery } from "../../lib/router.ts";
import { session } from "../../lib/session.ts";
import { useAction } from "../../lib/use-action.ts";
import { useLoad } from "../../lib/use-load.ts";
import { PAGES } from "../../paths.ts";
import { useConfirm } from "../../ui/confirm.tsx";
import { DataTable } from "../../ui/data-table.tsx";
import { Link } from "../../ui/link.tsx";
import { PageHeader } from "../../ui/page-header.tsx";
import { Empty, LoadState, ProblemNotice } from "../../ui/status.tsx";
import { CreateAgent } from "./create-agent.tsx";
import { DangerCell, OpenButton } from "../../ui/actions.tsx";

export const agentPath = (id: string, tab?: string) => withQuery(PAGES.agent.replace(":id", encodeURIComponent(id)), { tab });

/** A just-created agent, whose webhook signing secret its screen shows this once. */
let justCreated: AgentWithSecret | null = null;

export function takeCreated(id: string): AgentWithSecret | null {
  const created = justCreated?.id === id ? justCreated : null;
  justCreated = null;
  return created;
}

export async function allAgents(): Promise<Agent[]> {
  const agents: Agent[] = [];
  for await (const agent of session.client.agents.list({ limit: 100 })) agents.push(agent);
  return agents;
}

/** Opens a new agent's (or a copy's) page, which shows its webhook signing secret once. */
export function openCreated(agent: AgentWithSecret): void {
  justCreated = agent;
  navigate(agentPath(agent.id));
}

/** The voices' names by provider and id, for the connections the agents use (one that cannot list its voices is left out). */
async function voiceNames(agents: Agent[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  const providers = [...new Set(agents.map((agent) => agent.voice.provider_id))];
  await Promise.all(
    providers.map(async (provider_id) => {
      const listed = await session.client.voices.list({ provider_id }).catch(() => null);
      for (const voice of listed?.data ?? []) names.set(`${provider_id} ${voice.id}`, voice.name);
    }),
  );
  return names;
}

export function Agents() {
  return <AgentList onCreated={openCreated} />;
}

function AgentList({ onCreated }: { onCreated: (agent: AgentWithSecret) => void }) {
  const [agents, reload] = useLoad(allAgents, []);
  const listed = agents.status === "ready" ? agents.data : null;
  const [voices] = useLoad(() => voiceNames(listed ?? []), [listed]);
  const voiceName = (voice: Agent["voice"]) => (voices.status === "ready" && voices.data.get(`${voice.provider_id} ${voice.voice_id}`)) || voice.voice_id;
  const [creating, setCreating] = useState(false);
  const deleting = useAction();
  const confirm = useConfirm();
  const remove = async (agent: Agent) => {
    const ok = await confirm.ask({ title: `Delete “${agent.name}”?`, message: "Its configuration and versions are deleted, and its webhook stops. Calls already made are kept. This cannot be undone.", action: "Delete agent" });
    if (ok && (await deleting.run(() => session.client.agents.delete(agent.id)))) reload();
  };
  return (
    <>
      <PageHeader title="Agents" description="An agent answers and places calls: what it says, how it thinks (a flow or a language model), its voice, and what it does after the call.">
        <OpenButton open={creating} onOpen={() => setCreating(true)}>
          New agent
        </OpenButton>
      </PageHeader>
      {creating && <CreateAgent onCancel={() => setCreating(false)} onCreated={onCreated} />}
      <ProblemNotice problem={deleting.problem} />
      <LoadState state={agents} label="Loading agents…" onRetry={reload} />
      {agents.status === "ready" && agents.data.length === 0 && !creating && (
        <Empty title="No agents yet">
          <p>Start from a template: a receptionist, an assistant on a language model, or an appointment booker.</p>
        </Empty>
      )}
      {agents.status === "ready" && agents.data.length > 0 && (
        <DataTable caption="Agents" columns={["Name", "Brain", "Voice", "Version", "Updated", null]}>
          {agents.data.map((agent) => (
            <tr key={agent.id}>
              <th scope="row">
                <Link href={agentPath(agent.id)}>{agent.name}</Link>
              </th>
              <td>{agent.brain.type === "flow" ? "Flow" : `LLM · ${agent.brain.model}`}</td>
              <td>{voiceName(agent.voice)}</td>
              <td>{agent.version}</td>
              <td>{formatDate(agent.updated_at)}</td>
              <DangerCell label={`Delete ${agent.name}`} busy={deleting.busy} onClick={() => remove(agent)}>
                  Delete
                </DangerCell>
            </tr>
          ))}
        </DataTable>
      )}
      {confirm.dialog}
    </>
  );
}
