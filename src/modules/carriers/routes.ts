import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, pageWithBuiltIn } from "../../http/pagination.ts";
import { listConnectionRows, SIMULATED_CONNECTION_ID, unsealConnection, type CarrierConnectionRow } from "../../telephony/connections.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import type { CarrierConnection } from "../../telephony/types.ts";
import { carrierJson, carrierModels } from "./models.ts";
import * as service from "./service.ts";

const doc = docsFor("Telephony");

export function carrierRoutes(ctx: HttpContext, carriers: CarrierRegistry, usage: service.CarrierUsage) {
  const kinds = carriers.kinds();
  const models = carrierModels(
    kinds.map((kind) => kind.kind) as [string, ...string[]],
    kinds.map((kind) => `${kind.kind}: ${kind.summary}`).join(" "),
  );
  const json = (connection: CarrierConnection & { createdAt: number | null }) =>
    carrierJson(connection, {
      createdAt: connection.createdAt,
      callbackUrls: carriers.kind(connection.kind)?.callbackUrls(connection, ctx.publicUrl) ?? {},
      builtIn: connection.id === SIMULATED_CONNECTION_ID,
      status: carriers.carrier(connection.workspaceId, connection.id)?.status() ?? { state: "failed", detail: "the connection is gone" },
    });
  const rowJson = (row: CarrierConnectionRow) => json({ ...unsealConnection(ctx, row), createdAt: row.createdAt });
  return new Elysia({ prefix: "/v1/telephony/carriers" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ principal, query }) =>
        pageWithBuiltIn(
          pageRequest(query),
          json(service.getCarrierConnection(ctx, carriers, principal.workspaceId, SIMULATED_CONNECTION_ID)),
          (page) => listConnectionRows(ctx, principal.workspaceId, page),
          rowJson,
        ),
      {
        auth: "admin",
        query: t.Object(listQuery),
        response: { 200: ListOf(models.CarrierConnectionJson) },
        detail: doc("listCarrierConnections", "Carrier connections (Twilio, Telnyx, SIP trunks); secrets masked"),
      },
    )
    .post("/", ({ principal, body }) => status(201, json(service.createCarrierConnection(ctx, carriers, principal.workspaceId, body))), {
      auth: "admin",
      body: models.CarrierCreate,
      response: { 201: models.CarrierConnectionJson },
      detail: doc("createCarrierConnection", "Add a carrier connection"),
    })
    .get("/:id", ({ principal, params }) => json(service.getCarrierConnection(ctx, carriers, principal.workspaceId, params.id)), {
      auth: "admin",
      params: IdParam,
      response: { 200: models.CarrierConnectionJson },
      detail: doc("getCarrierConnection", "One connection"),
    })
    .patch("/:id", ({ principal, params, body }) => json(service.updateCarrierConnection(ctx, carriers, principal.workspaceId, params.id, body)), {
      auth: "admin",
      params: IdParam,
      body: models.CarrierUpdate,
      response: { 200: models.CarrierConnectionJson },
      detail: doc("updateCarrierConnection", "Update"),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        service.deleteCarrierConnection(ctx, carriers, usage, principal.workspaceId, params.id);
        return noContent();
      },
      { auth: "admin", params: IdParam, response: { 204: NoContent }, detail: doc("deleteCarrierConnection", "Remove") },
    );
}
