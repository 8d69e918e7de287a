import { ApiError } from "./errors.ts";

export type Scope = "read-only" | "write" | "admin";
export type Role = "owner" | "admin" | "member" | "viewer";

/** What a route asks of its caller (the Auth column of ENDPOINTS.md). */
/** `carrier`: called by a telephony or payment provider, which proves itself by its own signature (checked by the route). */
export type RouteAuth = "public" | "read" | "write" | "admin" | "user" | "operator" | "carrier" | "token";
export type WorkspaceLevel = "read" | "write" | "admin";

const RANK: Record<WorkspaceLevel, number> = { read: 1, write: 2, admin: 3 };

/** Both API key scopes and member roles land on the same three levels; one check serves both. */
export const SCOPE_LEVEL: Record<Scope, WorkspaceLevel> = { "read-only": "read", write: "write", admin: "admin" };
export const ROLE_LEVEL: Record<Role, WorkspaceLevel> = { viewer: "read", member: "write", admin: "admin", owner: "admin" };

/** A credential resolved to the workspace it acts in. */
export interface Principal {
  kind: "user" | "api_key";
  workspaceId: string;
  level: WorkspaceLevel;
  /** The user behind a JWT; for an API key, null. */
  userId: string | null;
  sessionId: string | null;
  role: Role | null;
  apiKeyId: string | null;
  scope: Scope | null;
  keyMode: "live" | "test" | null;
  isOperatorWorkspace: boolean;
}

/** A signed-in user (dashboard session): user-level routes need a person, not a key. */
export interface SessionPrincipal {
  userId: string;
  sessionId: string;
  /** The workspace the session currently acts in, if the user still belongs to one. */
  workspaceId: string | null;
}

/**
 * The level an API key needs for an operation of a route at `needed`: read-only keys make GET requests
 * only (the specification), so a read served by another method (POST search) takes a write key.
 * Members keep the route's level. Admission enforces this; the OpenAPI document shows it.
 */
export function keyLevelFor(needed: WorkspaceLevel, method: string): WorkspaceLevel {
  return needed === "read" && method !== "GET" && method !== "HEAD" ? "write" : needed;
}

/** An operation's `x-required-scope` in the OpenAPI document: for workspace routes, the API key scope it takes. */
export function requiredScope(auth: RouteAuth, method: string): RouteAuth {
  return auth === "read" || auth === "write" || auth === "admin" ? keyLevelFor(auth, method) : auth;
}

export function requireLevel(principal: Principal, needed: WorkspaceLevel | "operator", method: string): void {
  if (needed === "operator") {
    if (!principal.isOperatorWorkspace || principal.level !== "admin") {
      throw new ApiError("forbidden", "this operation is reserved to an admin of the instance operator's workspace");
    }
    return;
  }
  const level = principal.kind === "api_key" ? keyLevelFor(needed, method) : needed;
  if (RANK[principal.level] >= RANK[level]) return;
  if (level !== needed) throw new ApiError("insufficient_scope", `read-only API keys may make GET requests only; this is ${method}`);
  const held = principal.kind === "api_key" ? `API key scope "${principal.scope}"` : `role "${principal.role}"`;
  throw new ApiError("insufficient_scope", `this operation needs ${needed} access; the credential has ${held}`);
}
