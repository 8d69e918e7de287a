import { portPoint } from "../../core/hooks.ts";
import type { ApiKeyRow } from "../api-keys/models.ts";
import type { WorkspaceRow } from "../workspaces/models.ts";

/** What auth reaches in other features (workspaces, API keys); src/server.ts installs it. */
export interface AuthPorts {
  /** A new user's first workspace, owned by them; runs in the caller's transaction. */
  createWorkspaceWithOwner(userId: string, input: { name: string }, options: { operator?: boolean }): WorkspaceRow;
  /** The workspace a session opens in when it names none (null: the user belongs to none). */
  firstWorkspaceOf(userId: string): string | null;
  isMember(userId: string, workspaceId: string): boolean;
  /** 404 when there is no such workspace. */
  getWorkspace(workspaceId: string): WorkspaceRow;
  /** 404 when the workspace has no such key; its last use as known now. */
  getApiKey(workspaceId: string, id: string): ApiKeyRow;
}

const ports = portPoint<AuthPorts>("auth");
export const installAuthPorts = ports.install;
export const authPorts = ports.of;
