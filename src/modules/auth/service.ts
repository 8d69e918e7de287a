import type { AppContext } from "../../core/context.ts";
import type { HttpContext } from "../../http/context.ts";
import { ApiError, invalid } from "../../http/errors.ts";
import type { SessionPrincipal } from "../../http/permissions.ts";
import { newId } from "../../lib/ids.ts";
import { DAY, HOUR } from "../../lib/time.ts";
import { recordAudit } from "../../http/audit-writer.ts";
import type { WorkspaceRow } from "../workspaces/models.ts";
import { authPorts } from "./ports.ts";
import { checkPasswordStrength, hashPassword, verifyPassword } from "./passwords.ts";
import * as repo from "./repo.ts";
import { ACCESS_TOKEN_TTL_SECONDS } from "../../http/access-tokens.ts";
import { hashOpaqueToken, newOpaqueToken } from "../../lib/opaque-token.ts";

/** A refresh token keeps a session alive this long after its last use. */
export const SESSION_IDLE_LIFETIME_MS = 30 * DAY;
export const PASSWORD_RESET_LIFETIME_MS = HOUR;

export interface ClientInfo {
  ip: string;
  userAgent: string | null;
  requestId: string;
}

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: "Bearer";
  workspace_id: string | null;
}

export async function register(
  ctx: HttpContext,
  input: { email: string; password: string; name?: string; workspace_name?: string },
  client: ClientInfo,
): Promise<{ user: repo.UserRow; workspace: WorkspaceRow; tokens: TokenPair }> {
  if (ctx.config.registration === "closed") throw new ApiError("forbidden", "registration is closed on this instance; ask for an invitation");
  checkPasswordStrength("password", input.password);
  const email = input.email.toLowerCase();
  if (repo.findUserByEmail(ctx.db, email)) throw new ApiError("email_taken", "an account with this e-mail already exists", { errors: [{ field: "email", message: "is already registered" }] });
  const passwordHash = await hashPassword(input.password);
  const { user, workspace } = createUser(ctx, { email, passwordHash, name: input.name ?? null, workspaceName: input.workspace_name });
  const tokens = await startSession(ctx, user.id, workspace.id, client);
  recordAudit(ctx, {
    workspaceId: workspace.id, actorType: "user", actorId: user.id, apiKeyId: null, action: "registerUser",
    method: "POST", path: "/v1/auth/register", status: 201, ip: client.ip, userAgent: client.userAgent, requestId: client.requestId,
  });
  return { user, workspace, tokens };
}

/** A user and their first workspace, in one transaction (also used by `parley user create`). */
export function createUser(
  ctx: AppContext,
  input: { email: string; passwordHash: string; name: string | null; workspaceName?: string; operator?: boolean },
): { user: repo.UserRow; workspace: WorkspaceRow } {
  const now = ctx.clock.now();
  const user: repo.UserRow = { id: newId("usr"), email: input.email.toLowerCase(), name: input.name, passwordHash: input.passwordHash, createdAt: now, updatedAt: now };
  const workspaceName = input.workspaceName ?? (input.name ? `${input.name}'s workspace` : "My workspace");
  return ctx.sqlite.transaction(() => {
    if (repo.findUserByEmail(ctx.db, user.email)) throw new ApiError("email_taken", "an account with this e-mail already exists");
    repo.insertUser(ctx.db, user);
    const workspace = authPorts(ctx).createWorkspaceWithOwner(user.id, { name: workspaceName }, { operator: input.operator });
    return { user, workspace };
  })();
}

export async function login(ctx: HttpContext, input: { email: string; password: string; workspace_id?: string }, client: ClientInfo): Promise<TokenPair> {
  const user = repo.findUserByEmail(ctx.db, input.email);
  const valid = await verifyPassword(input.password, user?.passwordHash ?? null);
  if (!user || !valid) throw new ApiError("invalid_credentials", "e-mail or password is incorrect");
  let workspaceId = authPorts(ctx).firstWorkspaceOf(user.id);
  if (input.workspace_id) {
    if (!authPorts(ctx).isMember(user.id, input.workspace_id)) throw invalid("workspace_id", "you are not a member of this workspace");
    workspaceId = input.workspace_id;
  }
  return startSession(ctx, user.id, workspaceId, client);
}

async function startSession(ctx: HttpContext, userId: string, workspaceId: string | null, client: ClientInfo): Promise<TokenPair> {
  const now = ctx.clock.now();
  const sessionId = newId("ses");
  const refresh = newOpaqueToken();
  repo.insertSession(
    ctx.db,
    { id: sessionId, userId, workspaceId, userAgent: client.userAgent, ip: client.ip, createdAt: now, lastUsedAt: now, expiresAt: now + SESSION_IDLE_LIFETIME_MS },
    refresh.hash,
  );
  return tokenPair(ctx, userId, sessionId, workspaceId, refresh.token);
}

async function tokenPair(ctx: HttpContext, userId: string, sessionId: string, workspaceId: string | null, refreshToken: string): Promise<TokenPair> {
  const access = await ctx.tokens.issue({ sub: userId, sid: sessionId, ws: workspaceId });
  return { access_token: access, refresh_token: refreshToken, expires_in: ACCESS_TOKEN_TTL_SECONDS, token_type: "Bearer", workspace_id: workspaceId };
}

/**
 * Rotates the refresh token. Presenting one that was already rotated means two parties hold it:
 * the whole session (every token of the family) is revoked.
 */
export async function refresh(ctx: HttpContext, refreshToken: string): Promise<TokenPair> {
  const now = ctx.clock.now();
  const oldHash = hashOpaqueToken(refreshToken);
  const found = repo.findRefreshToken(ctx.db, oldHash);
  if (!found) throw new ApiError("unauthorized", "the refresh token is not valid");
  const { session } = found;
  if (session.revokedAt !== null || session.expiresAt <= now) throw new ApiError("unauthorized", "the session has ended; sign in again");
  const next = newOpaqueToken();
  const rotated =
    found.usedAt === null &&
    ctx.sqlite.transaction(() => repo.rotateRefreshToken(ctx.db, oldHash, next.hash, session.id, now, now + SESSION_IDLE_LIFETIME_MS))();
  if (!rotated) {
    repo.revokeSession(ctx.db, session.id, now, "refresh_token_reuse");
    ctx.logger.warn("refresh token reuse detected; session revoked", { session_id: session.id, user_id: session.userId });
    throw new ApiError("unauthorized", "this refresh token was already used; the session has been revoked for safety");
  }
  let workspaceId = session.workspaceId;
  if (workspaceId && !authPorts(ctx).isMember(session.userId, workspaceId)) workspaceId = authPorts(ctx).firstWorkspaceOf(session.userId);
  return tokenPair(ctx, session.userId, session.id, workspaceId, next.token);
}

export function logout(ctx: AppContext, session: SessionPrincipal): void {
  repo.revokeSession(ctx.db, session.sessionId, ctx.clock.now(), "logout");
}

export function revokeOwnSession(ctx: AppContext, session: SessionPrincipal, sessionId: string): void {
  const target = repo.findUserSession(ctx.db, session.userId, sessionId);
  if (!target || target.revokedAt !== null) throw new ApiError("not_found", "session not found");
  repo.revokeSession(ctx.db, sessionId, ctx.clock.now(), "revoked_by_user");
}

export async function changePassword(ctx: AppContext, session: SessionPrincipal, current: string, next: string): Promise<void> {
  const user = repo.findUser(ctx.db, session.userId);
  if (!user || !(await verifyPassword(current, user.passwordHash))) throw invalid("current_password", "is incorrect");
  checkPasswordStrength("new_password", next);
  const passwordHash = await hashPassword(next);
  const now = ctx.clock.now();
  ctx.sqlite.transaction(() => {
    repo.updateUser(ctx.db, user.id, { passwordHash, updatedAt: now });
    repo.revokeUserSessions(ctx.db, user.id, now, "password_changed", session.sessionId);
  })();
}

/** Always succeeds from the caller's view; the link goes by mail, or to the server log without a mail server. */
export function requestPasswordReset(ctx: AppContext, email: string): void {
  const user = repo.findUserByEmail(ctx.db, email);
  if (!user) return;
  const now = ctx.clock.now();
  const token = newOpaqueToken();
  repo.insertPasswordReset(ctx.db, { id: newId("rst"), userId: user.id, tokenHash: token.hash, createdAt: now, expiresAt: now + PASSWORD_RESET_LIFETIME_MS });
  const base = ctx.config.dashboardUrl || ctx.publicUrl;
  ctx.logger.info("password reset requested (no mail server configured; send this link to the user)", {
    email: user.email,
    link: `${base}/reset-password?token=${token.token}`,
  });
}

export async function resetPassword(ctx: AppContext, token: string, password: string): Promise<void> {
  const reset = repo.findPasswordReset(ctx.db, hashOpaqueToken(token));
  const now = ctx.clock.now();
  if (!reset || reset.usedAt !== null || reset.expiresAt <= now) throw invalid("token", "is invalid, already used or expired");
  checkPasswordStrength("password", password);
  const passwordHash = await hashPassword(password);
  const done = ctx.sqlite.transaction(() => {
    if (!repo.consumePasswordReset(ctx.db, reset.id, now)) return false;
    repo.updateUser(ctx.db, reset.userId, { passwordHash, updatedAt: now });
    repo.revokeUserSessions(ctx.db, reset.userId, now, "password_reset");
    return true;
  })();
  if (!done) throw invalid("token", "is invalid, already used or expired");
}
