import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { Tenant } from "./models.ts";
import { listTenants, tenantsJson } from "./tenants.ts";

const doc = docsFor("Operator");

/** The operator's console: the instance's tenant workspaces (149). */
export function operatorRoutes(ctx: HttpContext) {
  return new Elysia().use(authPlugin(ctx)).get(
    "/v1/admin/workspaces",
    ({ query }) => {
      const page = pageRequest(query);
      const rows = listTenants(ctx, page);
      const shown = tenantsJson(ctx, rows.slice(0, page.limit));
      const byId = new Map(shown.map((tenant) => [tenant.id, tenant]));
      return toPage(rows, page, (row) => ({ at: row.createdAt, id: row.id }), (row) => byId.get(row.id)!);
    },
    {
      auth: "operator",
      query: t.Object(listQuery),
      response: { 200: ListOf(Tenant) },
      detail: doc("listTenantWorkspaces", "All tenant workspaces on the instance", "Newest first, each with its members, wallet balance and the last 30 days' calls, talk time and spend."),
    },
  );
}
