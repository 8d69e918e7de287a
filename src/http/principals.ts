import { and, eq, isNull, sql } from "drizzle-orm";
import type { AppContext } from "../core/context.ts";
import type { HttpContext } from "./context.ts";
import { prepared } from "../db/prepared.ts";
import { apiKeys, members, sessions, workspaces } from "../db/schema/index.ts";
import { ApiError } from "./errors.ts";
import { ROLE_LEVEL, SCOPE_LEVEL, type Principal, type SessionPrincipal } from "./permissions.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { recordKeyUse } from "./key-usage.ts";
import { cachedKeyBySecretHash, rememberKey } from "./credential-cache.ts";

/** The header a signed-in user sends to act in another of their workspaces. */
export const WORKSPACE_HEADER = "x-workspace-id";

const membershipQuery = prepared((db) =>
  db
    .select({ role: members.role, isOperator: workspaces.isOperator })
    .from(members)
    .innerJoin(workspaces, eq(workspaces.id, members.workspaceId))
    .where(and(eq(members.workspaceId, sql.placeholder("workspaceId")), eq(members.userId, sql.placeholder("userId"))))
    .prepare(),
);

const apiKeyQuery = prepared((db) =>
  db
    .select({ key: apiKeys, workspace: workspaces })
    .from(apiKeys)
    .innerJoin(workspaces, eq(workspaces.id, apiKeys.workspaceId))
    .where(and(eq(apiKeys.secretHash, sql.placeholder("hash")), isNull(apiKeys.revokedAt)))
    .prepare(),
);

const sessionQuery = prepared((db) =>
  db
    .select({ revokedAt: sessions.revokedAt, expiresAt: sessions.expiresAt })
    .from(sessions)
    .where(and(eq(sessions.id, sql.placeholder("sessionId")), eq(sessions.userId, sql.placeholder("userId"))))
    .prepare(),
);

export type Credential = { kind: "api_key"; secret: string } | { kind: "jwt"; token: string };

export function readCredential(authorization: string | null): Credential | null {
  if (!authorization) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match) throw new ApiError("unauthorized", "Authorization must be `Bearer <token or API key>`");
  const value = match[1];
  return value.startsWith("sk_") ? { kind: "api_key", secret: value } : { kind: "jwt", token: value };
}

/**
 * THE place a credential becomes a principal: an API key or a user's JWT, resolved to the
 * workspace it acts in and the level it holds there. Routes only declare what they need.
 */
export async function resolveWorkspacePrincipal(ctx: HttpContext, credential: Credential, requestedWorkspace: string | null): Promise<Principal> {
  if (credential.kind === "api_key") {
    if (requestedWorkspace) throw new ApiError("bad_request", `${WORKSPACE_HEADER} applies to user sessions; an API key belongs to one workspace`);
    return resolveApiKey(ctx, credential.secret);
  }
  const session = await resolveSession(ctx, credential.token);
  const workspaceId = requestedWorkspace ?? session.workspaceId;
  if (!workspaceId) throw new ApiError("forbidden", "this session has no workspace; create one or accept an invitation");
  const membership = membershipQuery(ctx.db).get({ workspaceId, userId: session.userId });
  if (!membership) throw new ApiError("forbidden", `you are not a member of workspace ${workspaceId}`);
  return {
    kind: "user",
    workspaceId,
    level: ROLE_LEVEL[membership.role],
    userId: session.userId,
    sessionId: session.sessionId,
    role: membership.role,
    apiKeyId: null,
    scope: null,
    keyMode: null,
    isOperatorWorkspace: membership.isOperator,
  };
}

function resolveApiKey(ctx: AppContext, secret: string): Principal {
  const hash = sha256Hex(secret);
  const now = ctx.clock.now();
  let found = cachedKeyBySecretHash(ctx, hash, now);
  if (!found) {
    const row = apiKeyQuery(ctx.db).get({ hash });
    if (!row) throw new ApiError("unauthorized", "the API key is not valid or has been revoked");
    found = { ...row, loadedAt: now };
    rememberKey(ctx, found);
  }
  const { key, workspace } = found;
  recordKeyUse(ctx, key.id);
  return {
    kind: "api_key",
    workspaceId: key.workspaceId,
    level: SCOPE_LEVEL[key.scope],
    userId: null,
    sessionId: null,
    role: null,
    apiKeyId: key.id,
    scope: key.scope,
    keyMode: key.mode,
    isOperatorWorkspace: workspace.isOperator,
  };
}

/** A user's JWT whose session (refresh-token family) is still alive. */
export async function resolveSession(ctx: HttpContext, token: string): Promise<SessionPrincipal> {
  const claims = await ctx.tokens.verify(token);
  const session = sessionQuery(ctx.db).get({ sessionId: claims.sid, userId: claims.sub });
  if (!session || session.revokedAt !== null || session.expiresAt <= ctx.clock.now()) {
    throw new ApiError("unauthorized", "the session has ended; sign in again");
  }
  return { userId: claims.sub, sessionId: claims.sid, workspaceId: claims.ws };
}
