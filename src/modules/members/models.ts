import { t } from "elysia";
import { Email, Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import { Workspace } from "../workspaces/models.ts";
import type { InvitationRow, MemberView } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

export const MemberRole = t.Union([t.Literal("owner"), t.Literal("admin"), t.Literal("member"), t.Literal("viewer")], {
  description: "owner/admin: everything; member: read and write; viewer: read only",
});
export const InvitableRole = t.Union([t.Literal("admin"), t.Literal("member"), t.Literal("viewer")]);

export const Member = t.Object({
  id: t.String({ description: "`mem_…` (the membership, not the user)" }),
  object: t.Literal("member"),
  user_id: t.String(),
  email: t.String(),
  name: t.Union([t.String(), t.Null()]),
  role: MemberRole,
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const MemberWithWorkspace = t.Composite([Member, t.Object({ workspace: Workspace })]);

export const Invitation = t.Object({
  id: t.String({ description: "`inv_…`" }),
  object: t.Literal("invitation"),
  email: t.String(),
  role: InvitableRole,
  token: t.String({ description: "One-time token, shown once: the invitee accepts it while signed in" }),
  accept_url: t.String(),
  expires_at: Timestamp,
  created_at: Timestamp,
});

export const InviteBody = t.Object({ email: Email, role: InvitableRole }, { additionalProperties: false });
export const RoleChange = t.Object({ role: MemberRole }, { additionalProperties: false });
export const TokenParam = t.Object({ token: t.String({ minLength: 1, maxLength: 200 }) });

export function memberJson(row: MemberView) {
  return {
    id: row.id,
    object: "member" as const,
    user_id: row.userId,
    email: row.email,
    name: row.name,
    role: row.role,
    created_at: toIso(row.createdAt),
    updated_at: toIso(row.updatedAt),
  };
}

export function invitationJson(row: InvitationRow, token: string, acceptUrl: string) {
  return {
    id: row.id,
    object: "invitation" as const,
    email: row.email,
    role: row.role,
    token,
    accept_url: acceptUrl,
    expires_at: toIso(row.expiresAt),
    created_at: toIso(row.createdAt),
  };
}

nameSchemas({ MemberRole, InvitableRole, Member, MemberWithWorkspace, Invitation, InviteRequest: InviteBody, MemberUpdate: RoleChange });
