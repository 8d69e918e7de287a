import { portPoint } from "../../core/hooks.ts";
import type { Role } from "../../http/permissions.ts";
import type { WorkspaceRow } from "../workspaces/models.ts";

/** What members reach in other features (users, workspaces); src/server.ts installs it. */
export interface MembersPorts {
  findUser(userId: string): { id: string; email: string } | undefined;
  isMember(userId: string, workspaceId: string): boolean;
  /** Runs in the caller's transaction. */
  insertMember(member: { id: string; workspaceId: string; userId: string; role: Role; createdAt: number }): void;
  /** 404 when there is no such workspace. */
  getWorkspace(workspaceId: string): WorkspaceRow;
}

const ports = portPoint<MembersPorts>("members");
export const installMembersPorts = ports.install;
export const membersPorts = ports.of;
