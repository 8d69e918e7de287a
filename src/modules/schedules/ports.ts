import { portPoint } from "../../core/hooks.ts";
import type { PhoneNumberRow } from "../phone-numbers/models.ts";

/** What schedules reach in other features (agents, phone numbers); src/server.ts installs it. */
export interface SchedulesPorts {
  /** Checks an agent a request names: 422 on `agent_id` when it is not this workspace's. */
  referencedAgent(workspaceId: string, id: string): void;
  /** The workspace's number with this E.164 value. */
  ownedNumber(workspaceId: string, number: string): PhoneNumberRow | undefined;
}

const ports = portPoint<SchedulesPorts>("schedules");
export const installSchedulesPorts = ports.install;
export const schedulesPorts = ports.of;
