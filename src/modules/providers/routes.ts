import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, pageWithBuiltIn } from "../../http/pagination.ts";
import { CheckResult, Provider, ProviderCreate, ProviderUpdate, builtinProviderJson, providerJson } from "./models.ts";
import { listProviders } from "./repo.ts";
import * as service from "./service.ts";

const doc = docsFor("Providers");

export function providerRoutes(ctx: HttpContext, agentsUsing: (workspaceId: string, id: string) => { id: string; name: string }[]) {
  const json = (row: Parameters<typeof providerJson>[0]) => providerJson(row, service.lastFour(ctx, row));
  return new Elysia({ prefix: "/v1/providers" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ principal, query }) => pageWithBuiltIn(pageRequest(query), builtinProviderJson(), (page) => listProviders(ctx.db, principal.workspaceId, page), json),
      { auth: "admin", query: t.Object(listQuery), response: { 200: ListOf(Provider) }, detail: doc("listProviders", "Speech/LLM/embedding provider connections; secrets masked") },
    )
    .post("/", ({ principal, body }) => status(201, json(service.createProvider(ctx, principal.workspaceId, body))), {
      auth: "admin",
      body: ProviderCreate,
      response: { 201: Provider },
      detail: doc("createProvider", "Add one (OpenAI-compatible base URL + key, Deepgram, ElevenLabs, …)"),
    })
    .patch("/:id", ({ principal, params, body }) => json(service.updateProvider(ctx, principal.workspaceId, params.id, body)), {
      auth: "admin",
      params: IdParam,
      body: ProviderUpdate,
      response: { 200: Provider },
      detail: doc("updateProvider", "Update"),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        service.deleteProvider(ctx, principal.workspaceId, params.id, agentsUsing);
        return noContent();
      },
      { auth: "admin", params: IdParam, response: { 204: NoContent }, detail: doc("deleteProvider", "Remove") },
    )
    .post("/:id/check", ({ principal, params }) => service.checkProvider(ctx, principal.workspaceId, params.id), {
      auth: "admin",
      params: IdParam,
      response: { 200: CheckResult },
      detail: doc("checkProvider", "Live connectivity check"),
    });
}
