import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { keySlugFor } from "../../http/host-brand.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { ApiKey, ApiKeyCreate, ApiKeyUpdate, ApiKeyWithSecret, apiKeyJson } from "./models.ts";
import { listApiKeys } from "./repo.ts";
import { createApiKey, getApiKey, renameKey, revokeKey, withPendingUse } from "./service.ts";

const doc = docsFor("API keys");

export function apiKeyRoutes(ctx: HttpContext) {
  return new Elysia({ prefix: "/v1/api-keys" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(listApiKeys(ctx.db, principal.workspaceId, page), page, (r) => ({ at: r.createdAt, id: r.id }), (r) => apiKeyJson(withPendingUse(ctx, r)));
      },
      { auth: "admin", query: t.Object(listQuery), response: { 200: ListOf(ApiKey) }, detail: doc("listApiKeys", "List keys (name, scope, prefix, created, last used; never the secret)") },
    )
    .post(
      "/",
      ({ principal, body, request }) => {
        const { row, secret } = createApiKey(ctx, principal.workspaceId, body, principal.userId, keySlugFor(ctx, request));
        return status(201, { ...apiKeyJson(row), key: secret });
      },
      { auth: "admin", body: ApiKeyCreate, response: { 201: ApiKeyWithSecret }, detail: doc("createApiKey", "Create a key: `name`, `scope`; the secret is shown once") },
    )
    .get("/:id", ({ principal, params }) => apiKeyJson(getApiKey(ctx, principal.workspaceId, params.id)), {
      auth: "admin",
      params: IdParam,
      response: { 200: ApiKey },
      detail: doc("getApiKey", "One key"),
    })
    .patch("/:id", ({ principal, params, body }) => apiKeyJson(renameKey(ctx, principal.workspaceId, params.id, body.name)), {
      auth: "admin",
      params: IdParam,
      body: ApiKeyUpdate,
      response: { 200: ApiKey },
      detail: doc("updateApiKey", "Rename"),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        revokeKey(ctx, principal.workspaceId, params.id);
        return noContent();
      },
      { auth: "admin", params: IdParam, response: { 204: NoContent }, detail: doc("revokeApiKey", "Revoke (the only way a key stops working)") },
    );
}
