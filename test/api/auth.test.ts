import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registerUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe("register and login", () => {
  test("register creates a user and their first workspace, owned by them", async () => {
    const res = await server.api.post("/v1/auth/register", { email: "Ada@Example.test", password: "analytical engine", name: "Ada" });
    expect(res.status).toBe(201);
    expect(res.body.user).toMatchObject({ object: "user", email: "ada@example.test", name: "Ada" });
    expect(res.body.user.id).toMatch(/^usr_/);
    expect(res.body.workspace.id).toMatch(/^ws_/);
    expect(res.body).toMatchObject({ token_type: "Bearer", expires_in: 900 });
    const me = await server.api.get("/v1/auth/me", { token: res.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ object: "user", email: "ada@example.test", role: "owner", workspace: { id: res.body.workspace.id } });
    expect(me.body.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test("a second registration with the same e-mail is 409", async () => {
    const user = await registerUser(server.api);
    const res = await server.api.post("/v1/auth/register", { email: user.email.toUpperCase(), password: "another password" });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe("email_taken");
  });

  test("short passwords are refused naming the field", async () => {
    const res = await server.api.post("/v1/auth/register", { email: "short@example.test", password: "abc" });
    expect(res.status).toBe(422);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ field: "password" }));
  });

  test("login returns tokens; wrong password and unknown e-mail get the same answer", async () => {
    const user = await registerUser(server.api);
    const ok = await server.api.post("/v1/auth/login", { email: user.email, password: user.password });
    expect(ok.status).toBe(200);
    expect(Object.keys(ok.body).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type", "workspace_id"]);
    const wrong = await server.api.post("/v1/auth/login", { email: user.email, password: "not the password" });
    const unknown = await server.api.post("/v1/auth/login", { email: "nobody@example.test", password: "not the password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(unknown.body.detail).toBe(wrong.body.detail);
    expect(unknown.body.code).toBe("invalid_credentials");
  });
});

describe("refresh tokens", () => {
  test("rotate on every refresh; the new pair works", async () => {
    const user = await registerUser(server.api);
    const first = await server.api.post("/v1/auth/refresh", { refresh_token: user.refreshToken });
    expect(first.status).toBe(200);
    expect(first.body.refresh_token).not.toBe(user.refreshToken);
    const second = await server.api.post("/v1/auth/refresh", { refresh_token: first.body.refresh_token });
    expect(second.status).toBe(200);
    const me = await server.api.get("/v1/auth/me", { token: second.body.access_token });
    expect(me.status).toBe(200);
  });

  test("reusing a rotated refresh token revokes the whole session family", async () => {
    const user = await registerUser(server.api);
    const rotated = await server.api.post("/v1/auth/refresh", { refresh_token: user.refreshToken });
    expect(rotated.status).toBe(200);
    const replay = await server.api.post("/v1/auth/refresh", { refresh_token: user.refreshToken });
    expect(replay.status).toBe(401);
    // The legitimate holder's newer tokens die with the family.
    const next = await server.api.post("/v1/auth/refresh", { refresh_token: rotated.body.refresh_token });
    expect(next.status).toBe(401);
    const me = await server.api.get("/v1/auth/me", { token: rotated.body.access_token });
    expect(me.status).toBe(401);
    expect(me.body.code).toBe("unauthorized");
  });

  test("logout revokes the session: refresh and access both stop working", async () => {
    const user = await registerUser(server.api);
    const out = await server.api.post("/v1/auth/logout", undefined, { token: user.token });
    expect(out.status).toBe(204);
    expect((await server.api.post("/v1/auth/refresh", { refresh_token: user.refreshToken })).status).toBe(401);
    expect((await server.api.get("/v1/auth/me", { token: user.token })).status).toBe(401);
  });
});

describe("access token expiry (fake clock)", () => {
  test("an expired JWT is 401 token_expired; a forged one is 401 unauthorized", async () => {
    const user = await registerUser(server.api);
    expect((await server.api.get("/v1/auth/me", { token: user.token })).status).toBe(200);
    server.clock.advance(15 * 60 * 1000 + 1000);
    const expired = await server.api.get("/v1/auth/me", { token: user.token });
    expect(expired.status).toBe(401);
    expect(expired.body.code).toBe("token_expired");
    const [header, payload] = user.token.split(".");
    const forged = await server.api.get("/v1/auth/me", { token: `${header}.${payload}.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA` });
    expect(forged.body.code).toBe("unauthorized");
    const missing = await server.api.get("/v1/auth/me");
    expect(missing.status).toBe(401);
    expect(missing.body.code).toBe("unauthorized");
    // The refresh token outlives the access token.
    const refreshed = await server.api.post("/v1/auth/refresh", { refresh_token: user.refreshToken });
    expect(refreshed.status).toBe(200);
    expect((await server.api.get("/v1/auth/me", { token: refreshed.body.access_token })).status).toBe(200);
  });
});

describe("profile, password and sessions", () => {
  test("PATCH /auth/me renames the user", async () => {
    const user = await registerUser(server.api);
    const res = await server.api.patch("/v1/auth/me", { name: "Grace" }, { token: user.token });
    expect(res.status).toBe(200);
    expect(res.body.name).toBe("Grace");
  });

  test("changing the password revokes the other sessions but keeps this one", async () => {
    const user = await registerUser(server.api);
    const other = await server.api.post("/v1/auth/login", { email: user.email, password: user.password });
    const wrong = await server.api.post("/v1/auth/password", { current_password: "nope nope", new_password: "a brand new one" }, { token: user.token });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].field).toBe("current_password");
    const res = await server.api.post("/v1/auth/password", { current_password: user.password, new_password: "a brand new one" }, { token: user.token });
    expect(res.status).toBe(204);
    expect((await server.api.get("/v1/auth/me", { token: user.token })).status).toBe(200);
    expect((await server.api.get("/v1/auth/me", { token: other.body.access_token })).status).toBe(401);
    expect((await server.api.post("/v1/auth/login", { email: user.email, password: "a brand new one" })).status).toBe(200);
  });

  test("sessions are listed with the current one marked, and one can be revoked", async () => {
    const user = await registerUser(server.api);
    const other = await server.api.post("/v1/auth/login", { email: user.email, password: user.password }, { headers: { "user-agent": "second-device/1.0" } });
    const list = await server.api.get("/v1/auth/sessions", { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.data.filter((s: any) => s.current)).toHaveLength(1);
    const second = list.body.data.find((s: any) => s.user_agent === "second-device/1.0");
    expect(second.ip).toBe("127.0.0.1");
    const revoke = await server.api.delete(`/v1/auth/sessions/${second.id}`, { token: user.token });
    expect(revoke.status).toBe(204);
    expect((await server.api.get("/v1/auth/me", { token: other.body.access_token })).status).toBe(401);
    expect((await server.api.delete(`/v1/auth/sessions/${second.id}`, { token: user.token })).status).toBe(404);
  });
});

describe("password reset", () => {
  test("forgot always answers 202 and logs a one-time link that expires", async () => {
    const user = await registerUser(server.api);
    const unknown = await server.api.post("/v1/auth/password/forgot", { email: "ghost@example.test" });
    expect(unknown.status).toBe(202);
    const known = await server.api.post("/v1/auth/password/forgot", { email: user.email });
    expect(known.status).toBe(202);
    expect(known.body).toEqual(unknown.body);
    const line = server.logs.find((l) => l.includes("password reset requested") && l.includes(user.email));
    expect(line).toBeDefined();
    const token = /token=([A-Za-z0-9]+)/.exec(line!)![1];

    const reset = await server.api.post("/v1/auth/password/reset", { token, password: "fresh password 1" });
    expect(reset.status).toBe(204);
    expect((await server.api.post("/v1/auth/login", { email: user.email, password: "fresh password 1" })).status).toBe(200);
    // Old sessions die with the old password; the token is one-time.
    expect((await server.api.get("/v1/auth/me", { token: user.token })).status).toBe(401);
    const again = await server.api.post("/v1/auth/password/reset", { token, password: "fresh password 2" });
    expect(again.status).toBe(422);
    expect(again.body.errors[0].field).toBe("token");

    await server.api.post("/v1/auth/password/forgot", { email: user.email });
    const later = server.logs.filter((l) => l.includes("password reset requested") && l.includes(user.email)).at(-1)!;
    const laterToken = /token=([A-Za-z0-9]+)/.exec(later)![1];
    server.clock.advance(61 * 60 * 1000);
    expect((await server.api.post("/v1/auth/password/reset", { token: laterToken, password: "fresh password 3" })).status).toBe(422);
  });
});
