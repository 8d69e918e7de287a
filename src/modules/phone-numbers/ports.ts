import { portPoint } from "../../core/hooks.ts";

/** What phone numbers reach in other features (agents); src/server.ts installs it. */
export interface PhoneNumbersPorts {
  /** Checks an agent a request names: 422 on `agent_id` when it is not this workspace's. */
  referencedAgent(workspaceId: string, id: string): void;
}

const ports = portPoint<PhoneNumbersPorts>("phone numbers");
export const installPhoneNumbersPorts = ports.install;
export const phoneNumbersPorts = ports.of;
