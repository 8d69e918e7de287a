import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { ApiError, invalid } from "../../http/errors.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { jsonText } from "../../http/json-text.ts";
import { ListOf, listQuery, pageRequest, toPage, toPageText } from "../../http/pagination.ts";
import { decodeCursor, encodeCursor } from "../../lib/cursor.ts";
import { TEST_EVENT_TYPE } from "../../webhooks/event-types.ts";
import { publishAgentEvent } from "../../webhooks/outbox.ts";
import { attemptJson, deliveryJson, TestResult } from "../webhooks/models.ts";
import type { BrainServices } from "../../voice/brains/services.ts";
import { chat } from "./chat.ts";
import { AgentCreate, AgentUpdate } from "../../voice/agent-config.ts";
import { Agent, AgentVersion, AgentWithSecret, ChatRequest, ChatResponse, DraftVersionCreate, PublishRequest, TestFunctionRequest, ToolInvocation, VersionParams, WebhookSecret, agentJson, agentJsonText, configOf, listedAgentJson, versionJson } from "./models.ts";
import { agentsPorts } from "./ports.ts";
import { listAgents, listVersions, type AgentListRow } from "./repo.ts";
import * as service from "./service.ts";

const doc = docsFor("Agents");

export function agentRoutes(ctx: HttpContext, brains: BrainServices, agentUsage: (workspaceId: string, agentId: string) => string[]) {
  const actor = (p: { userId: string | null; apiKeyId: string | null }) => p.userId ?? p.apiKeyId;
  const ports = agentsPorts(ctx);
  return new Elysia({ prefix: "/v1/agents" })
    .use(authPlugin(ctx))
    .post(
      "/",
      ({ principal, body }) => {
        const { row, webhookSecret } = service.createAgent(ctx, principal.workspaceId, body, actor(principal));
        return status(201, { ...agentJson(row), webhook_secret: webhookSecret });
      },
      { auth: "write", body: AgentCreate, response: { 201: AgentWithSecret }, detail: doc("createAgent", "Create agent") },
    )
    .get(
      "/",
      ({ principal, query }) => {
        const page = pageRequest(query);
        const rows = listAgents(ctx.db, principal.workspaceId, page);
        const position = (row: AgentListRow) => ({ at: row.createdAt, id: row.id });
        return jsonText(ctx.config, toPageText(rows, page, position, agentJsonText), () => toPage(rows, page, position, listedAgentJson));
      },
      { auth: "read", query: t.Object(listQuery), response: { 200: ListOf(Agent) }, detail: doc("listAgents", "List agents") },
    )
    .get("/:id", ({ principal, params }) => agentJson(service.getAgent(ctx, principal.workspaceId, params.id)), {
      auth: "read",
      params: IdParam,
      response: { 200: Agent },
      detail: doc("getAgent", "Get agent"),
    })
    .patch(
      "/:id",
      ({ principal, params, body }) => {
        if (Object.keys(body).length === 0) throw invalid("body", "name at least one field to change");
        return agentJson(service.updateAgent(ctx, principal.workspaceId, params.id, body, actor(principal)));
      },
      { auth: "write", params: IdParam, body: AgentUpdate, response: { 200: Agent }, detail: doc("updateAgent", "Update agent (e.g. `webhook_url`); JSON body") },
    )
    .delete(
      "/:id",
      ({ principal, params }) => {
        service.deleteAgent(ctx, principal.workspaceId, params.id, agentUsage);
        return noContent();
      },
      { auth: "write", params: IdParam, response: { 204: NoContent }, detail: doc("deleteAgent", "Delete agent") },
    )
    .post(
      "/:id/test-function",
      async ({ principal, params, body }) => {
        const agent = configOf(service.getAgent(ctx, principal.workspaceId, params.id));
        const attached = agent.tools.some((tool) => "tool_id" in tool && tool.tool_id === body.tool_id);
        const invocation = attached ? ports.invokeTool(principal.workspaceId, body.tool_id, body.arguments ?? {}, { agentId: params.id, callId: null }) : null;
        if (!invocation) throw invalid("tool_id", "is not one of this agent's tools");
        return invocation;
      },
      {
        auth: "write",
        params: IdParam,
        body: TestFunctionRequest,
        response: { 200: ToolInvocation },
        detail: doc("testAgentFunction", "Invoke one of the agent's webhook functions with sample arguments"),
      },
    )
    .post(
      "/:id/duplicate",
      ({ principal, params, body }) => {
        const { row, webhookSecret } = service.duplicateAgent(ctx, principal.workspaceId, params.id, body?.name, actor(principal));
        return status(201, { ...agentJson(row), webhook_secret: webhookSecret });
      },
      {
        auth: "write",
        params: IdParam,
        body: t.Optional(t.Object({ name: t.Optional(t.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false })),
        response: { 201: AgentWithSecret },
        detail: doc("duplicateAgent", "Copy an agent"),
      },
    )
    .get(
      "/:id/versions",
      ({ principal, params, query }) => {
        const live = service.getAgent(ctx, principal.workspaceId, params.id).version;
        const limit = query.limit ?? 20;
        const after = query.cursor ? decodeCursor(query.cursor) : null;
        if (query.cursor && !after) throw invalid("cursor", "is not a cursor returned by this list");
        const rows = listVersions(ctx.db, principal.workspaceId, params.id, limit, after?.at ?? null);
        const shown = rows.slice(0, limit);
        const hasMore = rows.length > limit;
        return {
          data: shown.map((v) => versionJson(v, live)),
          has_more: hasMore,
          next_cursor: hasMore ? encodeCursor({ at: shown.at(-1)!.version, id: params.id }) : null,
        };
      },
      { auth: "read", params: IdParam, query: t.Object(listQuery), response: { 200: ListOf(AgentVersion) }, detail: doc("listAgentVersions", "Configuration history") },
    )
    .post(
      "/:id/versions",
      ({ principal, params, body }) => {
        const { note, ...changes } = body;
        const row = service.createDraftVersion(ctx, principal.workspaceId, params.id, changes, note, actor(principal));
        return status(201, versionJson(row, service.getAgent(ctx, principal.workspaceId, params.id).version));
      },
      {
        auth: "write",
        params: IdParam,
        body: DraftVersionCreate,
        response: { 201: AgentVersion },
        detail: doc("createAgentVersion", "Save a draft version", "The live configuration with the given fields replacing it, saved as a new version that is not live: calls keep the live version until it is published. Run the agent's tests against it first (`version` of POST /test-runs)."),
      },
    )
    .post(
      "/:id/versions/:version/publish",
      ({ principal, params, body }) => agentJson(service.publishVersion(ctx, principal.workspaceId, params.id, params.version, { requirePassingTests: body?.require_passing_tests === true })),
      {
        auth: "write",
        params: VersionParams,
        body: PublishRequest,
        response: { 200: Agent },
        detail: doc("publishAgentVersion", "Make a version live", "With `require_passing_tests`, refused (409 `tests_failing`) unless the latest completed test run against this version passed."),
      },
    )
    .post("/:id/versions/:version/restore", ({ principal, params }) => agentJson(service.restoreVersion(ctx, principal.workspaceId, params.id, params.version, actor(principal))), {
      auth: "write",
      params: VersionParams,
      response: { 200: Agent },
      detail: doc("restoreAgentVersion", "Roll back to a version"),
    })
    .post(
      "/:id/webhook/rotate-secret",
      ({ principal, params }) => {
        service.getAgent(ctx, principal.workspaceId, params.id);
        return { webhook_secret: ports.webhook.rotateSecret(principal.workspaceId, params.id) };
      },
      { auth: "write", params: IdParam, response: { 200: WebhookSecret }, detail: doc("rotateAgentWebhookSecret", "New signing secret, shown once") },
    )
    .post(
      "/:id/webhook/test",
      async ({ principal, params }) => {
        const agent = configOf(service.getAgent(ctx, principal.workspaceId, params.id));
        if (!agent.webhook_url) throw new ApiError("agent_not_ready", "the agent has no webhook_url");
        const published = publishAgentEvent(ctx, {
          workspaceId: principal.workspaceId,
          agentId: params.id,
          callId: null,
          type: TEST_EVENT_TYPE,
          data: { message: `Test event from ${ctx.brand.name}`, destination_id: params.id },
        });
        const result = await ports.awaitFirstAttempt(principal.workspaceId, published.eventId, published.deliveryIds[0]);
        return { event_id: result.eventId, delivery: deliveryJson(result.delivery, result.eventType), attempt: result.attempt ? attemptJson(result.attempt) : null };
      },
      { auth: "write", params: IdParam, response: { 200: TestResult }, detail: doc("testAgentWebhook", "Send a signed test event to `webhook_url`") },
    )
    .post("/:id/chat", ({ principal, params, body }) => chat(ctx, brains, principal.workspaceId, params.id, body), {
      auth: "write",
      params: IdParam,
      body: ChatRequest,
      response: { 200: ChatResponse },
      detail: doc("chatWithAgent", "Text conversation with the agent (playground)"),
    });
}
