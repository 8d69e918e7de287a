import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { Tool, ToolCreate, ToolUpdate, ToolWithSecret, toolJson } from "./models.ts";
import { listTools } from "./repo.ts";
import { createTool, deleteTool, getTool, headerNames, updateTool } from "./service.ts";

const doc = docsFor("Tools");

/** `agentsUsing`: the agents that name a tool, so a tool in use is not deleted from under them. */
export function toolRoutes(ctx: HttpContext, agentsUsing: (workspaceId: string, id: string) => { id: string; name: string }[]) {
  return new Elysia({ prefix: "/v1/tools" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(listTools(ctx.db, principal.workspaceId, page), page, (r) => ({ at: r.createdAt, id: r.id }), (r) => toolJson(r, headerNames(ctx, r)));
      },
      { auth: "read", query: t.Object(listQuery), response: { 200: ListOf(Tool) }, detail: doc("listTools", "Reusable functions (tools) agents can call") },
    )
    .post(
      "/",
      ({ principal, body }) => {
        const { row, secret } = createTool(ctx, principal.workspaceId, body);
        return status(201, { ...toolJson(row, headerNames(ctx, row)), secret });
      },
      { auth: "write", body: ToolCreate, response: { 201: ToolWithSecret }, detail: doc("createTool", "Create a tool") },
    )
    .get(
      "/:id",
      ({ principal, params }) => {
        const row = getTool(ctx, principal.workspaceId, params.id);
        return toolJson(row, headerNames(ctx, row));
      },
      { auth: "read", params: IdParam, response: { 200: Tool }, detail: doc("getTool", "Get a tool") },
    )
    .patch(
      "/:id",
      ({ principal, params, body }) => {
        const row = updateTool(ctx, principal.workspaceId, params.id, body);
        return toolJson(row, headerNames(ctx, row));
      },
      { auth: "write", params: IdParam, body: ToolUpdate, response: { 200: Tool }, detail: doc("updateTool", "Update a tool") },
    )
    .delete(
      "/:id",
      ({ principal, params }) => {
        const users = agentsUsing(principal.workspaceId, params.id).map((a) => `${a.name} (${a.id})`);
        deleteTool(ctx, principal.workspaceId, params.id, users);
        return noContent();
      },
      { auth: "write", params: IdParam, response: { 204: NoContent }, detail: doc("deleteTool", "Delete a tool") },
    );
}
