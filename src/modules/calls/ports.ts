import { portPoint } from "../../core/hooks.ts";
import type { AgentConfig } from "../../voice/agent-config.ts";
import type { AgentRow } from "../agents/models.ts";
import type { PhoneNumberRow } from "../phone-numbers/models.ts";

/** What calls reach in other features (agents, phone numbers); src/server.ts installs it. */
export interface CallsPorts {
  /** An agent a request names: 422 on `agent_id` when it is not this workspace's. */
  referencedAgent(workspaceId: string, id: string): AgentRow;
  /** 404 when the workspace has no such agent. */
  getAgent(workspaceId: string, id: string): AgentRow;
  /** The agent as it was at a version (as it is now when that version is gone); null once deleted. */
  agentConfigAt(workspaceId: string, agentId: string, version: number): AgentConfig | null;
  numberById(workspaceId: string, id: string): PhoneNumberRow | undefined;
  /** The workspace's number with this E.164 value. */
  ownedNumber(workspaceId: string, number: string): PhoneNumberRow | undefined;
  /** The number whose calls the agent answers (its caller id by default). */
  numberOfAgent(workspaceId: string, agentId: string): PhoneNumberRow | undefined;
}

const ports = portPoint<CallsPorts>("calls");
export const installCallsPorts = ports.install;
export const callsPorts = ports.of;
