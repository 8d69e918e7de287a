import { describe, expect, test } from "bun:test";
import { addMember, createKey, registerUser, serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser("owner");

describe("members and invitations", () => {
  test("an invitation is accepted by the invited user, who then acts with the invited role", async () => {
    const invitee = await registerUser(s.server.api, "invitee");
    const invite = await s.server.api.post("/v1/workspaces/current/members", { email: invitee.email, role: "viewer" }, { token: s.user.token });
    expect(invite.status).toBe(201);
    expect(invite.body).toMatchObject({ object: "invitation", email: invitee.email, role: "viewer" });
    expect(invite.body.accept_url).toContain(invite.body.token);

    const stranger = await registerUser(s.server.api, "stranger");
    const wrongUser = await s.server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: stranger.token });
    expect(wrongUser.status).toBe(403);

    const accepted = await s.server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: invitee.token });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ object: "member", role: "viewer", user_id: invitee.userId, workspace: { id: s.user.workspaceId } });
    expect((await s.server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: invitee.token })).status).toBe(409);

    const workspaces = await s.server.api.get("/v1/workspaces", { token: invitee.token });
    expect(workspaces.body.data.map((w: any) => [w.id, w.role])).toContainEqual([s.user.workspaceId, "viewer"]);
    // Switch workspace per request with the header.
    const current = await s.server.api.get("/v1/workspaces/current", { token: invitee.token, headers: { "x-workspace-id": s.user.workspaceId } });
    expect(current.body.id).toBe(s.user.workspaceId);
    const write = await s.server.api.patch("/v1/workspaces/current", { name: "hijacked" }, { token: invitee.token, headers: { "x-workspace-id": s.user.workspaceId } });
    expect(write.status).toBe(403);
    expect(write.body.code).toBe("insufficient_scope");
  });

  test("invitations expire", async () => {
    const invitee = await registerUser(s.server.api, "late");
    const invite = await s.server.api.post("/v1/workspaces/current/members", { email: invitee.email, role: "member" }, { token: s.user.token });
    s.server.clock.advance(8 * 24 * 60 * 60 * 1000);
    const fresh = await s.server.api.post("/v1/auth/login", { email: invitee.email, password: invitee.password });
    const res = await s.server.api.post(`/v1/workspaces/invitations/${invite.body.token}/accept`, undefined, { token: fresh.body.access_token });
    expect(res.status).toBe(410);
    s.user.token = (await s.server.api.post("/v1/auth/login", { email: s.user.email, password: s.user.password })).body.access_token;
  });

  test("inviting an existing member is 409", async () => {
    const res = await s.server.api.post("/v1/workspaces/current/members", { email: s.user.email, role: "admin" }, { token: s.user.token });
    expect(res.status).toBe(409);
  });

  test("roles change; only owners touch owners; the last s.user stays", async () => {
    const admin = await addMember(s.server.api, s.user, "admin", "admin");
    const member = await addMember(s.server.api, s.user, "member", "member");
    const list = await s.server.api.get("/v1/workspaces/current/members", { token: s.user.token });
    const ownerRow = list.body.data.find((m: any) => m.user_id === s.user.userId);

    const promote = await s.server.api.patch(`/v1/workspaces/current/members/${member.memberId}`, { role: "admin" }, { token: admin.token });
    expect(promote.status).toBe(200);
    expect(promote.body.role).toBe("admin");
    expect((await s.server.api.patch(`/v1/workspaces/current/members/${member.memberId}`, { role: "owner" }, { token: admin.token })).status).toBe(403);
    expect((await s.server.api.patch(`/v1/workspaces/current/members/${ownerRow.id}`, { role: "viewer" }, { token: admin.token })).status).toBe(403);
    expect((await s.server.api.delete(`/v1/workspaces/current/members/${ownerRow.id}`, { token: admin.token })).status).toBe(403);
    const adminKey = await createKey(s.server.api, s.user.token, "admin");
    expect((await s.server.api.patch(`/v1/workspaces/current/members/${member.memberId}`, { role: "owner" }, { token: adminKey.secret })).status).toBe(403);

    const lastOwner = await s.server.api.patch(`/v1/workspaces/current/members/${ownerRow.id}`, { role: "admin" }, { token: s.user.token });
    expect(lastOwner.status).toBe(409);
    expect((await s.server.api.delete(`/v1/workspaces/current/members/${ownerRow.id}`, { token: s.user.token })).status).toBe(409);

    // With a second s.user, the first may step down.
    expect((await s.server.api.patch(`/v1/workspaces/current/members/${admin.memberId}`, { role: "owner" }, { token: s.user.token })).status).toBe(200);
    expect((await s.server.api.patch(`/v1/workspaces/current/members/${ownerRow.id}`, { role: "admin" }, { token: s.user.token })).status).toBe(200);
  });

  test("a removed member loses access at once", async () => {
    const fresh = await registerUser(s.server.api, "boss");
    const viewer = await addMember(s.server.api, fresh, "viewer", "removed");
    expect((await s.server.api.get("/v1/workspaces/current", { token: viewer.token })).status).toBe(200);
    expect((await s.server.api.delete(`/v1/workspaces/current/members/${viewer.memberId}`, { token: fresh.token })).status).toBe(204);
    const after = await s.server.api.get("/v1/workspaces/current", { token: viewer.token });
    expect(after.status).toBe(403);
  });
});
