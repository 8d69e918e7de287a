import { afterAll, beforeAll, expect } from "bun:test";
import type { ApiClient } from "./client.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./server.ts";
import { hashPassword } from "../../src/modules/auth/passwords.ts";
import { createUser } from "../../src/modules/auth/service.ts";

let counter = 0;

export function uniqueEmail(label = "user"): string {
  return `${label}-${Date.now().toString(36)}-${++counter}@example.test`;
}

export interface RegisteredUser {
  email: string;
  password: string;
  userId: string;
  workspaceId: string;
  token: string;
  refreshToken: string;
}

export async function registerUser(api: ApiClient, label = "user"): Promise<RegisteredUser> {
  const email = uniqueEmail(label);
  const password = "correct horse battery";
  const res = await api.post("/v1/auth/register", { email, password, name: label });
  expect(res.status).toBe(201);
  return { email, password, userId: res.body.user.id, workspaceId: res.body.workspace.id, token: res.body.access_token, refreshToken: res.body.refresh_token };
}

/** A user of the instance operator's workspace (as `parley user create --operator` makes one), signed in. */
export async function registerOperator(server: TestServer, label = "operator"): Promise<RegisteredUser> {
  const email = uniqueEmail(label);
  const password = "operator password long";
  createUser(server.ctx, { email, passwordHash: await hashPassword(password), name: label, operator: true });
  const res = await server.api.post("/v1/auth/login", { email, password });
  expect(res.status).toBe(200);
  return { email, password, userId: "", workspaceId: res.body.workspace_id, token: res.body.access_token, refreshToken: res.body.refresh_token };
}

export async function createKey(api: ApiClient, token: string, scope: "read-only" | "write" | "admin", name = `${scope} key`) {
  const res = await api.post("/v1/api-keys", { name, scope }, { token });
  expect(res.status).toBe(201);
  return { id: res.body.id as string, secret: res.body.key as string };
}

/** Invites `label` into the owner's workspace with `role` and returns the new member signed in there. */
export async function addMember(api: ApiClient, owner: RegisteredUser, role: "admin" | "member" | "viewer", label: string = role) {
  const user = await registerUser(api, label);
  const invite = await api.post("/v1/workspaces/current/members", { email: user.email, role }, { token: owner.token });
  expect(invite.status).toBe(201);
  const accepted = await api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: user.token });
  expect(accepted.status).toBe(200);
  const login = await api.post("/v1/auth/login", { email: user.email, password: user.password, workspace_id: owner.workspaceId });
  expect(login.status).toBe(200);
  return { ...user, memberId: accepted.body.id as string, token: login.body.access_token as string, workspaceId: owner.workspaceId };
}

/** One server for the whole test file and one registered user on it (ready inside tests). */
export function serverWithUser(label = "user", options?: TestServerOptions): { server: TestServer; user: RegisteredUser } {
  const state = {} as { server: TestServer; user: RegisteredUser };
  beforeAll(async () => {
    state.server = await startTestServer(options);
    state.user = await registerUser(state.server.api, label);
  });
  afterAll(() => state.server?.stop());
  return state;
}
