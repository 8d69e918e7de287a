// Secrets carried in request paths and queries (invitation tokens, the realtime session's ?token=, the
// tokens of e-mailed links) reach neither the database nor the log: every such route is listed here,
// called with real secrets, and the database (SQLite's files, or PostgreSQL's dump) and the log are searched
// for them afterwards.
import { describe, expect, test } from "bun:test";
import { execFileSync } from "node:child_process";
import { readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { createApp } from "../../src/app.ts";
import { REDACTED, SECRET_PARAMETERS, loggableTarget } from "../../src/http/redaction.ts";
import { registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { postgresBinaries } from "../helpers/postgres.ts";
import { ON_POSTGRES } from "../helpers/server.ts";
import { holdWriteLock } from "../helpers/write-lock.ts";

const s = serverWithUser("redaction");
const secrets: string[] = [];

/** Routes with a path or query parameter that carries a secret, as the router has them. */
function secretBearingRoutes(): string[] {
  const { routes } = createApp(s.server.ctx, s.server.ctx.services);
  return routes
    .all()
    .filter((route) => {
      const inPath = [...route.path.matchAll(/:(\w+)/g)].some(([, name]) => SECRET_PARAMETERS.has(name));
      const query = route.hooks.query as { properties?: Record<string, unknown> } | undefined;
      return inPath || Object.keys(query?.properties ?? {}).some((name) => SECRET_PARAMETERS.has(name));
    })
    .map((route) => `${route.method} ${route.path}`)
    .sort();
}

async function invite(email: string): Promise<string> {
  const res = await s.server.api.post("/v1/workspaces/current/members", { email, role: "viewer" }, { token: s.user.token });
  expect(res.status).toBe(201);
  secrets.push(res.body.token);
  return res.body.token;
}

describe("secrets in paths and queries", () => {
  test("every route whose path or query carries a secret is exercised below", () => {
    expect(secretBearingRoutes()).toEqual(["GET /invitations/:token", "GET /v1/realtime/session", "POST /v1/workspaces/invitations/:token/accept"]);
  });

  test("POST /v1/workspaces/invitations/:token/accept: refused to someone else, refused by a busy database, accepted", async () => {
    const invitee = await registerUser(s.server.api, "invitee");
    const stranger = await registerUser(s.server.api, "stranger");
    const token = await invite(invitee.email);
    const path = `/v1/workspaces/invitations/${token}/accept`;
    expect((await s.server.api.post(path, undefined, { token: stranger.token })).status).toBe(403);
    // SQLite's write lock refuses the write (PostgreSQL's refusals, the server going away, are test/postgres/'s).
    if (!ON_POSTGRES) {
      const lock = holdWriteLock(s.server.ctx);
      try {
        expect((await s.server.api.post(path, undefined, { token: invitee.token })).status).toBe(503);
      } finally {
        lock.release();
        s.server.ctx.sqlite.pragma("busy_timeout = 5000");
      }
    }
    expect((await s.server.api.post(path, undefined, { token: invitee.token })).status).toBe(200);
    // The stranger's own audit log shows the refusal, without the token.
    s.server.ctx.writeBehind.flush();
    const audit = await s.server.api.get("/v1/audit-log", { token: stranger.token });
    expect(audit.body.data.map((row: { path: string }) => row.path)).toContain(`/v1/workspaces/invitations/${REDACTED}/accept`);
  });

  test("GET /invitations/:token (the page the invitation links to)", async () => {
    const token = await invite(`page-${Date.now()}@example.test`);
    expect((await fetch(`${s.server.url}/invitations/${token}`)).status).toBe(200);
  });

  test("GET /v1/realtime/session?token=: a session opened and closed, and a plain GET", async () => {
    const agent = await s.server.api.post("/v1/agents", { name: "Reception", first_message: "Hello" }, { token: s.user.token });
    const issue = async () => {
      const res = await s.server.api.post("/v1/realtime/token", { agent_id: agent.body.id }, { token: s.user.token });
      expect(res.status).toBe(201);
      secrets.push(res.body.token);
      return res.body as { token: string; url: string };
    };
    const session = await issue();
    const socket = new WebSocket(session.url.replace(/^http/, "ws"));
    await new Promise((resolve, reject) => {
      socket.onmessage = resolve;
      socket.onerror = reject;
    });
    socket.close();
    expect((await fetch(`${s.server.url}/v1/realtime/session?token=${(await issue()).token}`)).status).toBe(400);
  });

  test("the pages e-mailed links open, and the operations they call (reset, newsletter)", async () => {
    for (const page of ["reset-password", "newsletter/confirm", "newsletter/unsubscribe"]) {
      const token = `tok_${page.replace(/\W/g, "")}_${crypto.randomUUID()}`;
      secrets.push(token);
      expect((await fetch(`${s.server.url}/${page}?token=${token}`)).status).toBe(200);
    }
    const reset = `tok_reset_${crypto.randomUUID()}`;
    secrets.push(reset);
    expect((await s.server.api.post("/v1/auth/password/reset", { token: reset, password: "a new long password" })).status).toBe(422);
  });

  test("none of those secrets is in the database files or the log", async () => {
    expect(secrets.length).toBeGreaterThanOrEqual(8);
    s.server.ctx.writeBehind.flush();
    s.server.ctx.sqlite.pragma("wal_checkpoint(PASSIVE)");
    const files = ON_POSTGRES ? [databaseDump()] : [s.server.ctx.dataDir.database, `${s.server.ctx.dataDir.database}-wal`].filter(existsSync).map((file) => readFileSync(file));
    const log = s.server.logs.join("\n");
    for (const secret of secrets) {
      for (const bytes of files) expect(bytes.indexOf(secret)).toBe(-1);
      expect(log).not.toContain(secret);
    }
    // The rows are there, redacted: the refused, the busy (SQLite) and the accepted request.
    const paths = s.server.ctx.sqlite.prepare("SELECT path FROM audit_log WHERE action = 'acceptInvitation'").all() as { path: string }[];
    expect(paths.length).toBeGreaterThanOrEqual(ON_POSTGRES ? 2 : 3);
    expect(new Set(paths.map((row) => row.path))).toEqual(new Set([`/v1/workspaces/invitations/${REDACTED}/accept`]));
    if (!ON_POSTGRES) expect(log).toContain(`/v1/workspaces/invitations/${REDACTED}/accept`); // the busy request's warning
  });
});

describe("loggableTarget", () => {
  test("redacts secret path segments of the route and secret query values, keeps the rest", () => {
    expect(loggableTarget("/v1/workspaces/invitations/:token/accept", "http://h/v1/workspaces/invitations/inv_abc/accept")).toBe(`/v1/workspaces/invitations/${REDACTED}/accept`);
    expect(loggableTarget("/v1/realtime/session", "http://h/v1/realtime/session?token=rt_abc&rate=16000")).toBe(`/v1/realtime/session?token=${REDACTED}&rate=16000`);
    expect(loggableTarget(undefined, "http://h/anything?Access_Token=x&api%5Fkey=y&q=1")).toBe(`/anything?Access_Token=${REDACTED}&api%5Fkey=${REDACTED}&q=1`);
  });
});

/** Every row of the PostgreSQL database, as pg_dump writes it (the server's files hold other databases too). */
function databaseDump(): Buffer {
  return execFileSync(join(postgresBinaries(), "pg_dump"), ["--data-only", "--dbname", s.server.ctx.config.databaseUrl!], { maxBuffer: 256 * 1024 * 1024 });
}
