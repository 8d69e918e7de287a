import { describe, expect, test } from "bun:test";
import { serverWithUser } from "../helpers/fixtures.ts";

const s = serverWithUser();

describe("workspaces", () => {
  test("create a second workspace, list both, act in either", async () => {
    const created = await s.server.api.post("/v1/workspaces", { name: "Acme EU", timezone: "Europe/Berlin", default_country: "DE" }, { token: s.user.token });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "workspace", name: "Acme EU", timezone: "Europe/Berlin", default_country: "DE", role: "owner" });
    const list = await s.server.api.get("/v1/workspaces", { token: s.user.token });
    expect(list.body.data.map((w: any) => w.id).sort()).toEqual([s.user.workspaceId, created.body.id].sort());
    const current = await s.server.api.get("/v1/workspaces/current", { token: s.user.token, headers: { "x-workspace-id": created.body.id } });
    expect(current.body.id).toBe(created.body.id);
    const login = await s.server.api.post("/v1/auth/login", { email: s.user.email, password: s.user.password, workspace_id: created.body.id });
    expect(login.body.workspace_id).toBe(created.body.id);
  });

  test("PATCH current validates the time zone and country", async () => {
    const bad = await s.server.api.patch("/v1/workspaces/current", { timezone: "Mars/Olympus" }, { token: s.user.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe("timezone");
    const badCountry = await s.server.api.patch("/v1/workspaces/current", { default_country: "germany" }, { token: s.user.token });
    expect(badCountry.body.errors[0].field).toBe("default_country");
    const ok = await s.server.api.patch("/v1/workspaces/current", { name: "Renamed", timezone: "America/New_York", default_language: "en-US" }, { token: s.user.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ name: "Renamed", timezone: "America/New_York" });
    expect(Date.parse(ok.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(ok.body.created_at));
  });
});
