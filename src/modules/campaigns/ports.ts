import { portPoint } from "../../core/hooks.ts";
import type { AgentRow } from "../agents/models.ts";
import type { PhoneNumberRow } from "../phone-numbers/models.ts";

/** What campaigns reach in other features (agents, phone numbers); src/server.ts installs it. */
export interface CampaignsPorts {
  /** Checks an agent a request names: 422 on `agent_id` when it is not this workspace's. */
  referencedAgent(workspaceId: string, id: string): void;
  /** The agent as it is now; undefined once deleted. */
  findAgent(workspaceId: string, id: string): AgentRow | undefined;
  numberById(workspaceId: string, id: string): PhoneNumberRow | undefined;
}

const ports = portPoint<CampaignsPorts>("campaigns");
export const installCampaignsPorts = ports.install;
export const campaignsPorts = ports.of;
