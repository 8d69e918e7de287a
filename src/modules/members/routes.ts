import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { workspaceJson } from "../workspaces/models.ts";
import { Invitation, InviteBody, Member, MemberWithWorkspace, RoleChange, TokenParam, invitationJson, memberJson } from "./models.ts";
import { membersPorts } from "./ports.ts";
import { listMembers } from "./repo.ts";
import { acceptInvitation, changeRole, invite, removeMember } from "./service.ts";

const doc = docsFor("Members");

export function memberRoutes(ctx: HttpContext) {
  return new Elysia({ prefix: "/v1/workspaces" })
    .use(authPlugin(ctx))
    .get(
      "/current/members",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(listMembers(ctx.db, principal.workspaceId, page), page, (r) => ({ at: r.createdAt, id: r.id }), memberJson);
      },
      { auth: "read", query: t.Object(listQuery), response: { 200: ListOf(Member) }, detail: doc("listMembers", "Members and roles") },
    )
    .post(
      "/current/members",
      ({ principal, body }) => {
        const { row, token, acceptUrl } = invite(ctx, principal, body);
        return status(201, invitationJson(row, token, acceptUrl));
      },
      { auth: "admin", body: InviteBody, response: { 201: Invitation }, detail: doc("inviteMember", "Invite a member (returns an invitation token)") },
    )
    .patch("/current/members/:id", ({ principal, params, body }) => memberJson(changeRole(ctx, principal, params.id, body.role)), {
      auth: "admin",
      params: IdParam,
      body: RoleChange,
      response: { 200: Member },
      detail: doc("updateMember", "Change a member's role"),
    })
    .delete(
      "/current/members/:id",
      ({ principal, params }) => {
        removeMember(ctx, principal, params.id);
        return noContent();
      },
      { auth: "admin", params: IdParam, response: { 204: NoContent }, detail: doc("removeMember", "Remove a member") },
    )
    .post(
      "/invitations/:token/accept",
      ({ session, params }) => {
        const member = acceptInvitation(ctx, session, params.token);
        return { ...memberJson(member), workspace: workspaceJson(membersPorts(ctx).getWorkspace(member.workspaceId)) };
      },
      { user: true, params: TokenParam, response: { 200: MemberWithWorkspace }, detail: doc("acceptInvitation", "Accept an invitation") },
    );
}
