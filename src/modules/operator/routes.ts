import { Elysia, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { IdParam } from "../../http/models.ts";
import { SuspendRequest, Tenant } from "./models.ts";
import { resumeTenant, suspendTenant, type StopWorkspaceCalls } from "./suspension.ts";
import { listTenants, tenantsJson } from "./tenants.ts";

const doc = docsFor("Operator");

/** The operator's console: the instance's tenant workspaces (149), and suspending one. */
export function operatorRoutes(ctx: HttpContext, stopCalls: StopWorkspaceCalls) {
  const one = (row: Parameters<typeof tenantsJson>[1][number]) => tenantsJson(ctx, [row])[0];
  return new Elysia()
    .use(authPlugin(ctx))
    .post("/v1/admin/workspaces/:id/suspend", async ({ params, body }) => one(await suspendTenant(ctx, params.id, body.reason, stopCalls)), {
      auth: "operator",
      params: IdParam,
      body: SuspendRequest,
      response: { 200: Tenant },
      detail: doc("suspendTenantWorkspace", "Suspend a tenant", "At once: its API keys and members' sessions get 403 `workspace_suspended`, its live calls end (`end_reason: workspace_suspended`), queued ones are canceled, and no call starts (campaigns pause with the reason). Suspending again only updates the reason."),
    })
    .post("/v1/admin/workspaces/:id/resume", ({ params }) => one(resumeTenant(ctx, params.id)), {
      auth: "operator",
      params: IdParam,
      response: { 200: Tenant },
      detail: doc("resumeTenantWorkspace", "Resume a suspended tenant", "Its keys and sessions work again; paused campaigns stay paused until started."),
    })
    .get(
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
