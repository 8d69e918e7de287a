// The workspace's agents, carrier connections and numbers, as the operations screens offer them in selects.
import type { Agent, CarrierConnection, PhoneNumber } from "../../../sdk/ts/src/index.ts";
import { session } from "../../lib/session.ts";

export const allAgents = (): Promise<Agent[]> => session.client.agents.list({ limit: 100 }).all();

export const allNumbers = (): Promise<PhoneNumber[]> => session.client.phoneNumbers.list({ limit: 100 }).all();

/** Carrier connections; only admins may list them, so anyone else gets the built-in simulated carrier alone. */
export async function carrierChoices(): Promise<{ value: string; label: string }[]> {
  try {
    const carriers: CarrierConnection[] = await session.client.carriers.list({ limit: 100 }).all();
    return carriers.map((carrier) => ({ value: carrier.id, label: `${carrier.name} (${carrier.kind})` }));
  } catch {
    return [{ value: "simulated", label: "Simulated carrier (simulated)" }];
  }
}

/** An agent select's options, starting with the prompt to choose one. */
export function agentOptions(agents: Agent[]): { value: string; label: string }[] {
  return [{ value: "", label: agents.length ? "Choose an agent" : "No agents yet: create one first" }, ...agents.map((agent) => ({ value: agent.id, label: agent.name }))];
}

export function agentName(agents: Agent[], id: string | null): string {
  if (!id) return "—";
  return agents.find((agent) => agent.id === id)?.name ?? id;
}
