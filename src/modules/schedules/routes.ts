import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { SCHEDULE_STATUSES } from "../../db/schema/index.ts";
import { authPlugin } from "../../http/auth.ts";
import { reachOf } from "../../telephony/reach.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam, OneOf } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { Schedule, ScheduleCreate, ScheduleUpdate, scheduleJson, type ScheduleRow } from "./models.ts";
import * as service from "./service.ts";

const doc = docsFor("Schedules");

export function scheduleRoutes(ctx: HttpContext) {
  const json = (row: ScheduleRow) => scheduleJson(row, service.runsOf(ctx, row.id));
  return new Elysia({ prefix: "/v1/schedules" })
    .use(authPlugin(ctx))
    .post("/", ({ principal, body }) => status(201, json(service.createSchedule(ctx, principal.workspaceId, body, reachOf(principal)))), {
      auth: "write",
      body: ScheduleCreate,
      response: { 201: Schedule },
      detail: doc("createSchedule", "Schedule a call (one time, or recurring by cron)"),
    })
    .get(
      "/",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(service.listSchedules(ctx, principal.workspaceId, page, query), page, (r) => ({ at: r.createdAt, id: r.id }), json);
      },
      {
        auth: "read",
        query: t.Object({ ...listQuery, status: t.Optional(OneOf(SCHEDULE_STATUSES)), agent_id: t.Optional(t.String()) }),
        response: { 200: ListOf(Schedule) },
        detail: doc("listSchedules", "List schedules"),
      },
    )
    .get("/:id", ({ principal, params }) => json(service.getSchedule(ctx, principal.workspaceId, params.id)), {
      auth: "read",
      params: IdParam,
      response: { 200: Schedule },
      detail: doc("getSchedule", "One schedule with its latest runs"),
    })
    .patch("/:id", ({ principal, params, body }) => json(service.updateSchedule(ctx, principal.workspaceId, params.id, body, reachOf(principal))), {
      auth: "write",
      params: IdParam,
      body: ScheduleUpdate,
      response: { 200: Schedule },
      detail: doc("updateSchedule", "Move or change"),
    })
    .delete("/:id", ({ principal, params }) => json(service.cancelSchedule(ctx, principal.workspaceId, params.id)), {
      auth: "write",
      params: IdParam,
      response: { 200: Schedule },
      detail: doc("cancelSchedule", "Cancel (the schedule stays, `canceled`, with its runs)"),
    });
}
