import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { invalid, notFound } from "../../http/errors.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { parseIso } from "../../lib/time.ts";
import {
  Attempt, Delivery, Endpoint, EndpointCreate, EndpointUpdate, EndpointWithSecret, Event, EventWithDeliveries, TestResult,
  attemptJson, deliveryJson, endpointJson, eventJson,
} from "./models.ts";
import * as repo from "./repo.ts";
import * as service from "./service.ts";

const doc = docsFor("Webhooks");

const EventsQuery = t.Object({
  ...listQuery,
  type: t.Optional(t.String({ description: "Only this event type, e.g. `call.completed`" })),
  channel: t.Optional(t.Union([t.Literal("agent"), t.Literal("workspace")])),
  call_id: t.Optional(t.String({ maxLength: 64, description: "Only the events of this call (both channels)" })),
});

const AttemptsQuery = t.Object({
  ...listQuery,
  endpoint_id: t.Optional(t.String()),
  agent_id: t.Optional(t.String()),
  event_id: t.Optional(t.String()),
  delivery_id: t.Optional(t.String()),
  outcome: t.Optional(t.Union([t.Literal("succeeded"), t.Literal("failed")])),
  since: t.Optional(t.String({ format: "date-time" })),
});

const DeadLetterQuery = t.Object({ ...listQuery, endpoint_id: t.Optional(t.String()) });

export function webhookRoutes(ctx: HttpContext) {
  const byCreation = (row: { createdAt: number; id: string }) => ({ at: row.createdAt, id: row.id });
  return new Elysia({ prefix: "/v1/webhooks" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ principal, query }) => {
        const page = pageRequest(query);
        const now = ctx.clock.now();
        return toPage(repo.listEndpoints(ctx.db, principal.workspaceId, page), page, byCreation, (row) => endpointJson(row, now));
      },
      { auth: "read", query: t.Object(listQuery), response: { 200: ListOf(Endpoint) }, detail: doc("listWebhookEndpoints", "Workspace webhook endpoints") },
    )
    .post(
      "/",
      ({ principal, body }) => {
        const { row, secret } = service.createEndpoint(ctx, principal.workspaceId, body);
        return status(201, { ...endpointJson(row, ctx.clock.now()), secret });
      },
      { auth: "admin", body: EndpointCreate, response: { 201: EndpointWithSecret }, detail: doc("createWebhookEndpoint", "Add an endpoint (URL, event types); secret shown once") },
    )
    .get(
      "/deliveries",
      ({ principal, query }) => {
        const page = pageRequest(query);
        const since = query.since === undefined ? undefined : (parseIso(query.since) ?? invalidTime("since"));
        const filter = { endpointId: query.endpoint_id, agentId: query.agent_id, eventId: query.event_id, deliveryId: query.delivery_id, outcome: query.outcome, since };
        return toPage(repo.listAttempts(ctx.db, principal.workspaceId, filter, page), page, byCreation, attemptJson);
      },
      { auth: "read", query: AttemptsQuery, response: { 200: ListOf(Attempt) }, detail: doc("listWebhookAttempts", "Delivery attempts (status, latency, response code)") },
    )
    .get(
      "/failed",
      ({ principal, query }) => {
        const page = pageRequest(query);
        const rows = repo.listDeadLetters(ctx.db, principal.workspaceId, { endpointId: query.endpoint_id }, page);
        return toPage(rows, page, (r) => ({ at: r.delivery.failedAt!, id: r.delivery.id }), (r) => deliveryJson(r.delivery, r.eventType));
      },
      { auth: "read", query: DeadLetterQuery, response: { 200: ListOf(Delivery) }, detail: doc("listDeadLetters", "Dead-letter queue") },
    )
    .post(
      "/failed/:id/replay",
      ({ principal, params }) => {
        const replayed = service.replayDeadLetter(ctx, principal.workspaceId, params.id);
        return status(202, deliveryJson(replayed.delivery, replayed.eventType));
      },
      { auth: "write", params: IdParam, response: { 202: Delivery }, detail: doc("replayDeadLetter", "Replay a dead letter") },
    )
    .get(
      "/events",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(repo.listEvents(ctx.db, principal.workspaceId, { type: query.type, channel: query.channel, callId: query.call_id }, page), page, byCreation, eventJson);
      },
      { auth: "read", query: EventsQuery, response: { 200: ListOf(Event) }, detail: doc("listEvents", "Event log") },
    )
    .get(
      "/events/:id",
      ({ principal, params }) => {
        const event = repo.findEvent(ctx.db, principal.workspaceId, params.id);
        if (!event) throw notFound("event");
        const deliveries = repo.deliveriesOfEvent(ctx.db, principal.workspaceId, event.id).map((r) => deliveryJson(r.delivery, r.eventType));
        return { ...eventJson({ ...event, deliveryCount: deliveries.length }), deliveries };
      },
      { auth: "read", params: IdParam, response: { 200: EventWithDeliveries }, detail: doc("getEvent", "One event with its deliveries") },
    )
    .get("/:id", ({ principal, params }) => endpointJson(service.getEndpoint(ctx, principal.workspaceId, params.id), ctx.clock.now()), {
      auth: "read",
      params: IdParam,
      response: { 200: Endpoint },
      detail: doc("getWebhookEndpoint", "One endpoint"),
    })
    .patch("/:id", ({ principal, params, body }) => endpointJson(service.updateEndpoint(ctx, principal.workspaceId, params.id, body), ctx.clock.now()), {
      auth: "admin",
      params: IdParam,
      body: EndpointUpdate,
      response: { 200: Endpoint },
      detail: doc("updateWebhookEndpoint", "Update, disable"),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        service.deleteEndpoint(ctx, principal.workspaceId, params.id);
        return noContent();
      },
      { auth: "admin", params: IdParam, response: { 204: NoContent }, detail: doc("deleteWebhookEndpoint", "Remove") },
    )
    .post(
      "/:id/rotate-secret",
      ({ principal, params }) => {
        const { row, secret } = service.rotateEndpointSecret(ctx, principal.workspaceId, params.id);
        return { ...endpointJson(row, ctx.clock.now()), secret };
      },
      { auth: "admin", params: IdParam, response: { 200: EndpointWithSecret }, detail: doc("rotateWebhookSecret", "New secret, shown once") },
    )
    .post(
      "/:id/test",
      async ({ principal, params }) => {
        const result = await service.sendEndpointTest(ctx, principal.workspaceId, params.id);
        return { event_id: result.eventId, delivery: deliveryJson(result.delivery, result.eventType), attempt: result.attempt ? attemptJson(result.attempt) : null };
      },
      { auth: "write", params: IdParam, response: { 200: TestResult }, detail: doc("testWebhookEndpoint", "Send a signed test event") },
    );
}

function invalidTime(field: string): never {
  throw invalid(field, "must be an ISO 8601 date-time");
}
