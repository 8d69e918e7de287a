import type { AppContext } from "../../core/context.ts";
import { ApiError, notFound } from "../../http/errors.ts";
import type { Principal, Role, SessionPrincipal } from "../../http/permissions.ts";
import { newId } from "../../lib/ids.ts";
import { DAY } from "../../lib/time.ts";
import { hashOpaqueToken, newOpaqueToken } from "../../lib/opaque-token.ts";
import { membersPorts } from "./ports.ts";
import * as repo from "./repo.ts";

export const INVITATION_LIFETIME_MS = 7 * DAY;

export function invite(ctx: AppContext, principal: Principal, input: { email: string; role: "admin" | "member" | "viewer" }) {
  const email = input.email.toLowerCase();
  if (repo.findMemberByEmail(ctx.db, principal.workspaceId, email)) {
    throw new ApiError("already_member", `${email} is already a member of this workspace`, { errors: [{ field: "email", message: "is already a member" }] });
  }
  const now = ctx.clock.now();
  const token = newOpaqueToken();
  const row: repo.InvitationRow = {
    id: newId("inv"),
    workspaceId: principal.workspaceId,
    email,
    role: input.role,
    tokenHash: token.hash,
    invitedBy: principal.userId ?? principal.apiKeyId,
    createdAt: now,
    expiresAt: now + INVITATION_LIFETIME_MS,
    acceptedAt: null,
    acceptedBy: null,
  };
  repo.insertInvitation(ctx.db, row);
  const base = ctx.config.dashboardUrl || ctx.publicUrl;
  return { row, token: token.token, acceptUrl: `${base}/invitations/${token.token}` };
}

/**
 * Owners are protected: only an owner may make or unmake one (an API key is never an owner),
 * and a workspace always keeps at least one.
 */
export function changeRole(ctx: AppContext, principal: Principal, memberId: string, role: Role): repo.MemberView {
  return ctx.sqlite.transaction(() => {
    const target = repo.findMember(ctx.db, principal.workspaceId, memberId);
    if (!target) throw notFound("member");
    if ((target.role === "owner" || role === "owner") && principal.role !== "owner") {
      throw new ApiError("forbidden", "only an owner can grant or change the owner role");
    }
    if (target.role === "owner" && role !== "owner" && repo.countOwners(ctx.db, principal.workspaceId) === 1) {
      throw new ApiError("last_owner", "a workspace needs at least one owner; make someone else owner first");
    }
    repo.setMemberRole(ctx.db, principal.workspaceId, memberId, role, ctx.clock.now());
    return repo.findMember(ctx.db, principal.workspaceId, memberId)!;
  })();
}

export function removeMember(ctx: AppContext, principal: Principal, memberId: string): void {
  ctx.sqlite.transaction(() => {
    const target = repo.findMember(ctx.db, principal.workspaceId, memberId);
    if (!target) throw notFound("member");
    if (target.role === "owner" && principal.role !== "owner") throw new ApiError("forbidden", "only an owner can remove an owner");
    if (target.role === "owner" && repo.countOwners(ctx.db, principal.workspaceId) === 1) {
      throw new ApiError("last_owner", "a workspace needs at least one owner; make someone else owner first");
    }
    repo.deleteMember(ctx.db, principal.workspaceId, memberId);
  })();
}

/** The invitee (signed in with the invited e-mail) joins with the invited role. */
export function acceptInvitation(ctx: AppContext, session: SessionPrincipal, token: string): repo.MemberView {
  const invitation = repo.findInvitationByTokenHash(ctx.db, hashOpaqueToken(token));
  if (!invitation) throw notFound("invitation");
  const now = ctx.clock.now();
  if (invitation.acceptedAt !== null) throw new ApiError("invalid_state", "this invitation has already been accepted");
  if (invitation.expiresAt <= now) throw new ApiError("gone", "this invitation has expired; ask for a new one");
  const ports = membersPorts(ctx);
  const user = ports.findUser(session.userId);
  if (!user || user.email !== invitation.email) throw new ApiError("forbidden", "this invitation was sent to a different e-mail address");
  return ctx.sqlite.transaction(() => {
    if (ports.isMember(user.id, invitation.workspaceId)) throw new ApiError("already_member", "you are already a member of this workspace");
    if (!repo.markInvitationAccepted(ctx.db, invitation.id, user.id, now)) throw new ApiError("invalid_state", "this invitation has already been accepted");
    const memberId = newId("mem");
    ports.insertMember({ id: memberId, workspaceId: invitation.workspaceId, userId: user.id, role: invitation.role, createdAt: now });
    return repo.findMember(ctx.db, invitation.workspaceId, memberId)!;
  })();
}
