import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let user: RegisteredUser;
beforeAll(async () => {
  server = await startTestServer();
  user = await registerUser(server.api);
});
afterAll(() => server.stop());

describe("workspaces", () => {
  test("create a second workspace, list both, act in either", async () => {
    const created = await server.api.post("/v1/workspaces", { name: "Acme EU", timezone: "Europe/Berlin", default_country: "DE" }, { token: user.token });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: "workspace", name: "Acme EU", timezone: "Europe/Berlin", default_country: "DE", role: "owner" });
    const list = await server.api.get("/v1/workspaces", { token: user.token });
    expect(list.body.data.map((w: any) => w.id).sort()).toEqual([user.workspaceId, created.body.id].sort());
    const current = await server.api.get("/v1/workspaces/current", { token: user.token, headers: { "x-workspace-id": created.body.id } });
    expect(current.body.id).toBe(created.body.id);
    const login = await server.api.post("/v1/auth/login", { email: user.email, password: user.password, workspace_id: created.body.id });
    expect(login.body.workspace_id).toBe(created.body.id);
  });

  test("PATCH current validates the time zone and country", async () => {
    const bad = await server.api.patch("/v1/workspaces/current", { timezone: "Mars/Olympus" }, { token: user.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toBe("timezone");
    const badCountry = await server.api.patch("/v1/workspaces/current", { default_country: "germany" }, { token: user.token });
    expect(badCountry.body.errors[0].field).toBe("default_country");
    const ok = await server.api.patch("/v1/workspaces/current", { name: "Renamed", timezone: "America/New_York", default_language: "en-US" }, { token: user.token });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ name: "Renamed", timezone: "America/New_York" });
    expect(Date.parse(ok.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(ok.body.created_at));
  });
});
