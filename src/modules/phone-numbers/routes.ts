import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { AssignBody, AvailableNumber, AvailableQuery, BuyBody, ImportBody, PhoneNumber, PhoneNumberUpdate, phoneNumberJson } from "./models.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import { reachOf } from "../../telephony/reach.ts";
import * as service from "./service.ts";

const doc = docsFor("Phone numbers");

export function phoneNumberRoutes(ctx: HttpContext, carriers: CarrierRegistry) {
  return new Elysia({ prefix: "/v1/phone-numbers" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(service.listPhoneNumbers(ctx, principal.workspaceId, page), page, (r) => ({ at: r.createdAt, id: r.id }), phoneNumberJson);
      },
      { auth: "read", query: t.Object(listQuery), response: { 200: ListOf(PhoneNumber) }, detail: doc("listPhoneNumbers", "List") },
    )
    .get("/available", async ({ principal, query }) => ({ data: await service.searchAvailable(ctx, carriers, principal.workspaceId, query, reachOf(principal)), has_more: false, next_cursor: null }), {
      auth: "read",
      query: AvailableQuery,
      response: { 200: ListOf(AvailableNumber) },
      detail: doc("searchAvailableNumbers", "Search a carrier's inventory"),
    })
    .post("/buy", async ({ principal, body }) => status(201, phoneNumberJson(await service.buyNumber(ctx, carriers, principal.workspaceId, body, reachOf(principal)))), {
      auth: "write",
      body: BuyBody,
      response: { 201: PhoneNumber },
      detail: doc("buyPhoneNumber", "Buy a number through a carrier"),
    })
    .post("/import", async ({ principal, body }) => status(201, phoneNumberJson(await service.importNumber(ctx, carriers, principal.workspaceId, body, reachOf(principal)))), {
      auth: "write",
      body: ImportBody,
      response: { 201: PhoneNumber },
      detail: doc("importPhoneNumber", "Bring your own number (carrier number or SIP DID)"),
    })
    .get("/:id", ({ principal, params }) => phoneNumberJson(service.getPhoneNumber(ctx, principal.workspaceId, params.id)), {
      auth: "read",
      params: IdParam,
      response: { 200: PhoneNumber },
      detail: doc("getPhoneNumber", "One number"),
    })
    .patch("/:id", ({ principal, params, body }) => phoneNumberJson(service.updatePhoneNumber(ctx, principal.workspaceId, params.id, body)), {
      auth: "write",
      params: IdParam,
      body: PhoneNumberUpdate,
      response: { 200: PhoneNumber },
      detail: doc("updatePhoneNumber", "Label, inbound behaviour"),
    })
    .post("/:id/assign", ({ principal, params, body }) => phoneNumberJson(service.assignNumber(ctx, principal.workspaceId, params.id, body.agent_id)), {
      auth: "write",
      params: IdParam,
      body: AssignBody,
      response: { 200: PhoneNumber },
      detail: doc("assignPhoneNumber", "Assign to an agent"),
    })
    .post("/:id/unassign", ({ principal, params }) => phoneNumberJson(service.assignNumber(ctx, principal.workspaceId, params.id, null)), {
      auth: "write",
      params: IdParam,
      response: { 200: PhoneNumber },
      detail: doc("unassignPhoneNumber", "Detach from its agent"),
    })
    .delete(
      "/:id",
      async ({ principal, params }) => {
        await service.releaseNumber(ctx, carriers, principal.workspaceId, params.id);
        return noContent();
      },
      { auth: "write", params: IdParam, response: { 204: NoContent }, detail: doc("releasePhoneNumber", "Release") },
    );
}
