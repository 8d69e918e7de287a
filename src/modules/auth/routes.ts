import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { ApiError } from "../../http/errors.ts";
import { Accepted, IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { requestMeta } from "../../http/request-meta.ts";
import { apiKeyJson } from "../api-keys/models.ts";
import { cachedKeyById, type CachedKey } from "../../http/credential-cache.ts";
import { lastUsedAt } from "../../http/key-usage.ts";
import { toIso } from "../../lib/time.ts";
import { workspaceJson } from "../workspaces/models.ts";
import {
  ForgotBody, LoginBody, Me, PasswordChange, ProfileUpdate, RefreshBody, RegisterBody, Registered, ResetBody, Session, Tokens, User,
  sessionJson, userJson,
} from "./models.ts";
import { authPorts } from "./ports.ts";
import * as repo from "./repo.ts";
import * as auth from "./service.ts";

const doc = docsFor("Auth");

const client = (request: Request): auth.ClientInfo => {
  const meta = requestMeta(request);
  return { ip: meta.ip, userAgent: meta.userAgent, requestId: meta.id };
};

export function authRoutes(ctx: HttpContext) {
  const ports = authPorts(ctx);
  // A key's answer to GET /me differs between requests only in last_used_at. A resolution is replaced
  // whenever a key or workspace is written (forgetCredentials), so what is rendered from it stays true.
  const rendered = new WeakMap<CachedKey, { apiKey: ReturnType<typeof apiKeyJson>; workspace: ReturnType<typeof workspaceJson> }>();
  const renderedKey = (resolved: CachedKey) => {
    let shown = rendered.get(resolved);
    if (!shown) {
      shown = { apiKey: apiKeyJson(resolved.key), workspace: workspaceJson(resolved.workspace) };
      rendered.set(resolved, shown);
    }
    return shown;
  };
  return new Elysia({ prefix: "/v1/auth" })
    .use(authPlugin(ctx))
    .post(
      "/register",
      async ({ body, request }) => {
        const { user, workspace, tokens } = await auth.register(ctx, body, client(request));
        return status(201, { user: userJson(user), workspace: workspaceJson(workspace), ...tokens });
      },
      { public: true, body: RegisterBody, response: { 201: Registered }, detail: doc("registerUser", "Register a user; creates their first workspace") },
    )
    .post("/login", ({ body, request }) => auth.login(ctx, body, client(request)), {
      public: true,
      body: LoginBody,
      response: { 200: Tokens },
      detail: doc("login", "`email`,`password` → `access_token`,`refresh_token`,`expires_in`"),
    })
    .post("/refresh", ({ body }) => auth.refresh(ctx, body.refresh_token), {
      public: true,
      body: RefreshBody,
      response: { 200: Tokens },
      detail: doc("refreshToken", "`refresh_token` → new access token (refresh token rotates)"),
    })
    .get(
      "/me",
      ({ principal }) => {
        if (principal.apiKeyId) {
          // The rows the key was just resolved with: no second read of either, and rendered once per resolution.
          const resolved = cachedKeyById(ctx, principal.apiKeyId, ctx.clock.now());
          if (resolved) {
            const shown = renderedKey(resolved);
            const last_used_at = toIso(lastUsedAt(ctx, resolved.key.id, resolved.key.lastUsedAt));
            return { object: "api_key" as const, id: principal.apiKeyId, api_key: { ...shown.apiKey, last_used_at }, workspace: shown.workspace };
          }
          const key = ports.getApiKey(principal.workspaceId, principal.apiKeyId);
          return { object: "api_key" as const, id: principal.apiKeyId, api_key: apiKeyJson(key), workspace: workspaceJson(ports.getWorkspace(principal.workspaceId)) };
        }
        const workspace = workspaceJson(ports.getWorkspace(principal.workspaceId));
        const user = repo.findUser(ctx.db, principal.userId!);
        if (!user) throw new ApiError("unauthorized", "the user no longer exists");
        return { ...userJson(user), role: principal.role!, workspace };
      },
      { auth: "read", response: { 200: Me }, detail: doc("getMe", "Current user (or, for an API key, the key and its workspace)") },
    )
    .post(
      "/logout",
      ({ session }) => {
        auth.logout(ctx, session);
        return noContent();
      },
      { user: true, response: { 204: NoContent }, detail: doc("logout", "Revoke the session's refresh token") },
    )
    .patch(
      "/me",
      ({ session, body }) => {
        repo.updateUser(ctx.db, session.userId, { name: body.name, updatedAt: ctx.clock.now() });
        return userJson(repo.findUser(ctx.db, session.userId)!);
      },
      { user: true, body: ProfileUpdate, response: { 200: User }, detail: doc("updateMe", "Update profile (name)") },
    )
    .post(
      "/password",
      async ({ session, body }) => {
        await auth.changePassword(ctx, session, body.current_password, body.new_password);
        return noContent();
      },
      { user: true, body: PasswordChange, response: { 204: NoContent }, detail: doc("changePassword", "Change password; revokes the user's other sessions") },
    )
    .post(
      "/password/forgot",
      ({ body }) => {
        auth.requestPasswordReset(ctx, body.email);
        return status(202, { status: "accepted" as const });
      },
      { public: true, body: ForgotBody, response: { 202: Accepted }, detail: doc("forgotPassword", "Start a reset; always 202, reveals nothing") },
    )
    .post(
      "/password/reset",
      async ({ body }) => {
        await auth.resetPassword(ctx, body.token, body.password);
        return noContent();
      },
      { public: true, body: ResetBody, response: { 204: NoContent }, detail: doc("resetPassword", "Finish a reset with the one-time token") },
    )
    .get(
      "/sessions",
      ({ session, query }) => {
        const page = pageRequest(query);
        const rows = repo.listActiveSessions(ctx.db, session.userId, ctx.clock.now(), page);
        return toPage(rows, page, (r) => ({ at: r.createdAt, id: r.id }), (r) => sessionJson(r, session.sessionId));
      },
      { user: true, query: t.Object(listQuery), response: { 200: ListOf(Session) }, detail: doc("listSessions", "List the user's sessions (device, IP, last use)") },
    )
    .delete(
      "/sessions/:id",
      ({ session, params }) => {
        auth.revokeOwnSession(ctx, session, params.id);
        return noContent();
      },
      { user: true, params: IdParam, response: { 204: NoContent }, detail: doc("revokeSession", "Revoke one session") },
    );
}
