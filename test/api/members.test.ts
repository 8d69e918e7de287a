import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addMember, createKey, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let owner: RegisteredUser;
beforeAll(async () => {
  server = await startTestServer();
  owner = await registerUser(server.api, "owner");
});
afterAll(() => server.stop());

describe("members and invitations", () => {
  test("an invitation is accepted by the invited user, who then acts with the invited role", async () => {
    const invitee = await registerUser(server.api, "invitee");
    const invite = await server.api.post("/v1/workspaces/current/members", { email: invitee.email, role: "viewer" }, { token: owner.token });
    expect(invite.status).toBe(201);
    expect(invite.body).toMatchObject({ object: "invitation", email: invitee.email, role: "viewer" });
    expect(invite.body.accept_url).toContain(invite.body.token);

    const stranger = await registerUser(server.api, "stranger");
    const wrongUser = await server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: stranger.token });
    expect(wrongUser.status).toBe(403);

    const accepted = await server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: invitee.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ object: "member", role: "viewer", user_id: invitee.userId, workspace: { id: owner.workspaceId } });
    expect((await server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: invitee.token })).status).toBe(409);

    const workspaces = await server.api.get("/v1/workspaces", { token: invitee.token });
    expect(workspaces.body.data.map((w: any) => [w.id, w.role])).toContainEqual([owner.workspaceId, "viewer"]);
    // Switch workspace per request with the header.
    const current = await server.api.get("/v1/workspaces/current", { token: invitee.token, headers: { "x-workspace-id": owner.workspaceId } });
    expect(current.body.id).toBe(owner.workspaceId);
    const write = await server.api.patch("/v1/workspaces/current", { name: "hijacked" }, { token: invitee.token, headers: { "x-workspace-id": owner.workspaceId } });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe("insufficient_scope");
  });

  test("invitations expire", async () => {
    const invitee = await registerUser(server.api, "late");
    const invite = await server.api.post("/v1/workspaces/current/members", { email: invitee.email, role: "member" }, { token: owner.token });
    server.clock.advance(8 * 24 * 60 * 60 * 1000);
    const fresh = await server.api.post("/v1/auth/login", { email: invitee.email, password: invitee.password });
    const res = await server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: fresh.body.access_token });
    expect(res.status).toBe(410);
    owner.token = (await server.api.post("/v1/auth/login", { email: owner.email, password: owner.password })).body.access_token;
  });

  test("inviting an existing member is 409", async () => {
    const res = await server.api.post("/v1/workspaces/current/members", { email: owner.email, role: "admin" }, { token: owner.token });
    expect(res.status).toBe(409);
  });

  test("roles change; only owners touch owners; the last owner stays", async () => {
    const admin = await addMember(server.api, owner, "admin", "admin");
    const member = await addMember(server.api, owner, "member", "member");
    const list = await server.api.get("/v1/workspaces/current/members", { token: owner.token });
    const ownerRow = list.body.data.find((m: any) => m.user_id === owner.userId);

    const promote = await server.api.patch(`/v1/workspaces/current/members/${member.memberId}`, { role: "admin" }, { token: admin.token });
    expect(promote.status).toBe(200);
    expect(promote.body.role).toBe("admin");
    expect((await server.api.patch(`/v1/workspaces/current/members/${member.memberId}`, { role: "owner" }, { token: admin.token })).status).toBe(403);
    expect((await server.api.patch(`/v1/workspaces/current/members/${ownerRow.id}`, { role: "viewer" }, { token: admin.token })).status).toBe(403);
    expect((await server.api.delete(`/v1/workspaces/current/members/${ownerRow.id}`, { token: admin.token })).status).toBe(403);
    const adminKey = await createKey(server.api, owner.token, "admin");
    expect((await server.api.patch(`/v1/workspaces/current/members/${member.memberId}`, { role: "owner" }, { token: adminKey.secret })).status).toBe(403);

    const lastOwner = await server.api.patch(`/v1/workspaces/current/members/${ownerRow.id}`, { role: "admin" }, { token: owner.token });
    expect(lastOwner.status).toBe(409);
    expect((await server.api.delete(`/v1/workspaces/current/members/${ownerRow.id}`, { token: owner.token })).status).toBe(409);

    // With a second owner, the first may step down.
    expect((await server.api.patch(`/v1/workspaces/current/members/${admin.memberId}`, { role: "owner" }, { token: owner.token })).status).toBe(200);
    expect((await server.api.patch(`/v1/workspaces/current/members/${ownerRow.id}`, { role: "admin" }, { token: owner.token })).status).toBe(200);
  });

  test("a removed member loses access at once", async () => {
    const fresh = await registerUser(server.api, "boss");
    const viewer = await addMember(server.api, fresh, "viewer", "removed");
    expect((await server.api.get("/v1/workspaces/current", { token: viewer.token })).status).toBe(200);
    expect((await server.api.delete(`/v1/workspaces/current/members/${viewer.memberId}`, { token: fresh.token })).status).toBe(204);
    const after = await server.api.get("/v1/workspaces/current", { token: viewer.token });
    expect(after.status).toBe(403);
  });
});
