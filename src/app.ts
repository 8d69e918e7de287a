import { Elysia } from "elysia";
import type { HttpContext } from "./http/context.ts";
import type { CarrierRegistry } from "./telephony/registry.ts";
import type { InboundCalls } from "./telephony/types.ts";
import type { AgentConfig } from "./voice/agent-config.ts";
import type { AgentChatReply } from "./modules/agents/chat.ts";
import type { WebCalls } from "./telephony/types.ts";
import type { IssuedToken, TokenRequest } from "./modules/realtime/tokens.ts";
import type { BrainServices } from "./voice/brains/services.ts";
import { auditTrail } from "./http/audit-trail.ts";
import { admission } from "./http/auth.ts";
import { bodyParser } from "./http/body-parser.ts";
import { errorHandler } from "./http/error-handler.ts";
import { idempotency } from "./http/idempotency.ts";
import { HttpMetrics, requestMetrics } from "./http/metrics.ts";
import { openApiRoutes } from "./http/openapi.ts";
import { assetRoutes } from "./web/assets.ts";
import { dashboardRoutes } from "./web/dashboard/routes.ts";
import { carriesBody, createRequestMeta } from "./http/request-meta.ts";
import { RouteIndex } from "./http/route-index.ts";
import { agentRoutes } from "./modules/agents/routes.ts";
import { agentTestRoutes } from "./modules/agent-tests/routes.ts";
import { callRoutes } from "./modules/calls/routes.ts";
import { callNodeRoutes } from "./modules/calls/node-routes.ts";
import { carrierRoutes } from "./modules/carriers/routes.ts";
import type { CarrierUsage } from "./modules/carriers/service.ts";
import { campaignRoutes } from "./modules/campaigns/routes.ts";
import { apiKeyRoutes } from "./modules/api-keys/routes.ts";
import { auditLogRoutes } from "./modules/audit-log/routes.ts";
import { authRoutes } from "./modules/auth/routes.ts";
import { healthRoutes } from "./modules/health/routes.ts";
import { knowledgeBaseRoutes } from "./modules/knowledge-base/routes.ts";
import { memberRoutes } from "./modules/members/routes.ts";
import { providerRoutes } from "./modules/providers/routes.ts";
import { realtimeRoutes } from "./modules/realtime/routes.ts";
import { phoneNumberRoutes } from "./modules/phone-numbers/routes.ts";
import { scheduleRoutes } from "./modules/schedules/routes.ts";
import { toolRoutes } from "./modules/tools/routes.ts";
import { voiceRoutes } from "./modules/voices/routes.ts";
import { webhookRoutes } from "./modules/webhooks/routes.ts";
import { analyticsRoutes } from "./modules/analytics/routes.ts";
import { operatorRoutes } from "./modules/operator/routes.ts";
import { walletRoutes } from "./modules/wallet/routes.ts";
import { paymentRoutes } from "./modules/wallet/payments/routes.ts";
import { widgetRoutes } from "./modules/widgets/routes.ts";
import { whiteLabelRoutes } from "./modules/white-label/routes.ts";
import { frontDoorRoutes } from "./modules/front-door/routes.ts";
import { workspaceRoutes } from "./modules/workspaces/routes.ts";

/** What the composition root hands the route families: the services they reach across features. */
export interface AppServices {
  brains: BrainServices;
  carriers: CarrierRegistry;
  inbound: InboundCalls;
  /** What still uses a carrier connection (its numbers), one sentence each. */
  carrierUsage: CarrierUsage;
  /** Agents whose configuration names an id (a tool, a knowledge base, a provider connection). */
  agentsUsing: (workspaceId: string, id: string) => { id: string; name: string }[];
  /** What still depends on an agent (numbers, campaigns, schedules), one sentence each. */
  agentUsage: (workspaceId: string, agentId: string) => string[];
  /** The configuration of an agent a request names (422 on agent_id when it is not this workspace's). */
  agentConfig: (workspaceId: string, agentId: string) => AgentConfig;
  /** Browser voice: a session token for an agent that can hold a live call (4xx saying why not). */
  realtimeToken: (workspaceId: string, request: TokenRequest) => IssuedToken;
  /** Browser voice: records a web call and hands its leg to the agent. */
  webCalls: WebCalls;
  /** A text turn with an agent's real brain, the conversation kept by session id (the playground's engine). */
  agentChat: (workspaceId: string, agentId: string, input: { message?: string; session_id?: string; variables?: Record<string, unknown>; channel?: "call" | "website_chat" }) => Promise<AgentChatReply>;
  /** The instance operator's workspace, or null before one exists (the public demo runs in it). */
  operatorWorkspaceId: () => string | null;
  /** Queues a real outbound call from a workspace (the calls feature's createOutboundCall); ApiError when it cannot be placed. */
  placeCall: (workspaceId: string, input: { agent_id: string; to: string; variables: Record<string, unknown>; metadata: Record<string, unknown> }) => { id: string };
  /** Suspension: hang up a workspace's live calls (on every node) and cancel its queued ones; answers how many. */
  stopWorkspaceCalls: (workspaceId: string, reason: string) => Promise<number>;
}

/**
 * The whole HTTP surface: shared plugins in a fixed order, then every resource family once.
 * No listen() here; main.ts and the tests decide where it serves.
 */
export function createApp(ctx: HttpContext, services: AppServices) {
  const routes = new RouteIndex();
  const metrics = new HttpMetrics(ctx.metrics, routes);
  // In a cluster every answer names the node that gave it (which node a load balancer chose, in its logs and ours).
  const node = ctx.dialect === "postgres" ? ctx.config.nodeName : null;
  const app = new Elysia({ normalize: false })
    .onRequest(({ request, server, set }) => {
      const meta = createRequestMeta(request, server?.requestIP(request)?.address, ctx.config, ctx.clock.now());
      if (node) meta.headers["x-parley-node"] = node;
      // The meta's headers ARE the response headers, so limits set during auth reach success responses too.
      Object.assign(set.headers, meta.headers);
      meta.headers = set.headers as Record<string, string>;
      // Nothing reads the body of a GET; with no cap of Bun's, the connection closes rather than drain it.
      if ((request.method === "GET" || request.method === "HEAD") && carriesBody(request)) meta.headers.connection = "close";
    })
    .use(errorHandler(ctx, routes, metrics))
    .use(bodyParser(routes, ctx.config.jsonBodyLimitBytes, admission(ctx)))
    .use(idempotency(ctx))
    .use(auditTrail(ctx, routes))
    .use(requestMetrics(metrics))
    .use(healthRoutes(ctx))
    .use(authRoutes(ctx))
    .use(workspaceRoutes(ctx))
    .use(memberRoutes(ctx))
    .use(apiKeyRoutes(ctx))
    .use(auditLogRoutes(ctx))
    .use(agentRoutes(ctx, services.brains, services.agentUsage))
    .use(agentTestRoutes(ctx))
    .use(toolRoutes(ctx, services.agentsUsing))
    .use(knowledgeBaseRoutes(ctx, services.agentsUsing))
    .use(providerRoutes(ctx, services.agentsUsing))
    .use(phoneNumberRoutes(ctx, services.carriers))
    .use(carrierRoutes(ctx, services.carriers, services.carrierUsage))
    .use(callRoutes(ctx, services.carriers))
    // What the other nodes of a cluster ask of this one (signed with the node key; not in the API document).
    .use(callNodeRoutes(ctx))
    .use(voiceRoutes(ctx))
    .use(campaignRoutes(ctx))
    .use(scheduleRoutes(ctx))
    .use(realtimeRoutes(ctx, services))
    .use(widgetRoutes(ctx, { agentConfig: services.agentConfig, agentChat: services.agentChat, realtimeToken: services.realtimeToken }))
    .use(frontDoorRoutes(ctx, { operatorWorkspaceId: services.operatorWorkspaceId, agentConfig: services.agentConfig, placeCall: services.placeCall }))
    .use(webhookRoutes(ctx))
    .use(walletRoutes(ctx))
    .use(paymentRoutes(ctx))
    .use(analyticsRoutes(ctx))
    .use(whiteLabelRoutes(ctx, { operatorWorkspaceId: services.operatorWorkspaceId }))
    .use(operatorRoutes(ctx, services.stopWorkspaceCalls));
  // Each carrier's own callbacks and media sockets, under /v1/telephony/<kind>/.
  for (const kind of services.carriers.kinds()) {
    if (!kind.routes) continue;
    const carriers = services.carriers;
    app.use(kind.routes(ctx, { inbound: services.inbound, connection: (id) => carriers.byId(id), connectionsOfKind: (name) => carriers.ofKind(name) }, `/v1/telephony/${kind.kind}`));
  }
  // The browser voice client and its worklet (the widget's embed.js is served by the widgets family).
  app.use(assetRoutes());
  // The dashboard: its page at / and at each of its own paths, its script and stylesheet.
  app.use(dashboardRoutes(ctx));
  app.use(openApiRoutes(ctx, routes));
  routes.load(app.routes);
  if (!ctx.config.checkResponses) routes.skipResponseChecks();
  return { app, routes };
}

export type ParleyApp = ReturnType<typeof createApp>["app"];
