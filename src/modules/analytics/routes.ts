import { Elysia } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { AnalyticsQuery, CallAnalytics } from "./models.ts";
import { callAnalytics } from "./service.ts";

const doc = docsFor("Analytics");

/** Call analytics (148). */
export function analyticsRoutes(ctx: HttpContext) {
  return new Elysia().use(authPlugin(ctx)).get("/v1/analytics/calls", ({ principal, query }) => callAnalytics(ctx, principal.workspaceId, query), {
    auth: "read",
    query: AnalyticsQuery,
    response: { 200: CallAnalytics },
    detail: doc("getCallAnalytics", "Volume, duration, outcomes, latency over time", "Calls created in [from, to), bucketed by `interval` (UTC), in total and per agent. Latency is the agents' end-to-end response time per turn."),
  });
}
