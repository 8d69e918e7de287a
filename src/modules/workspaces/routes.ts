import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { Workspace, WorkspaceCreate, WorkspaceUpdate, WorkspaceWithRole, workspaceJson } from "./models.ts";
import { listUserWorkspaces } from "./repo.ts";
import { createWorkspaceWithOwner, getWorkspace, updateWorkspaceSettings } from "./service.ts";

const doc = docsFor("Workspaces");

export function workspaceRoutes(ctx: HttpContext) {
  return new Elysia({ prefix: "/v1/workspaces" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ session, query }) => {
        const page = pageRequest(query);
        const rows = listUserWorkspaces(ctx.db, session.userId, page);
        return toPage(rows, page, (r) => ({ at: r.joinedAt, id: r.memberId }), (r) => ({ ...workspaceJson(r.workspace), role: r.role }));
      },
      { user: true, query: t.Object(listQuery), response: { 200: ListOf(WorkspaceWithRole) }, detail: doc("listWorkspaces", "Workspaces the user belongs to") },
    )
    .post(
      "/",
      ({ session, body }) => {
        const row = ctx.sqlite.transaction(() => createWorkspaceWithOwner(ctx, session.userId, body))();
        return status(201, { ...workspaceJson(row), role: "owner" as const });
      },
      { user: true, body: WorkspaceCreate, response: { 201: WorkspaceWithRole }, detail: doc("createWorkspace", "Create a workspace") },
    )
    .get("/current", ({ principal }) => workspaceJson(getWorkspace(ctx, principal.workspaceId)), {
      auth: "read",
      response: { 200: Workspace },
      detail: doc("getCurrentWorkspace", "The credential's workspace"),
    })
    .patch("/current", ({ principal, body }) => workspaceJson(updateWorkspaceSettings(ctx, principal.workspaceId, body)), {
      auth: "admin",
      body: WorkspaceUpdate,
      response: { 200: Workspace },
      detail: doc("updateCurrentWorkspace", "Rename, time zone, defaults"),
    });
}
