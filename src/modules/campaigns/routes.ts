import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { CAMPAIGN_STATUSES, CONTACT_STATUSES } from "../../db/schema/index.ts";
import { authPlugin } from "../../http/auth.ts";
import { reachOf } from "../../telephony/reach.ts";
import { StreamedBody } from "../../http/body-parser.ts";
import { docsFor } from "../../http/docs.ts";
import { invalid } from "../../http/errors.ts";
import { IdParam, NoContent, noContent, OneOf } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { configOf } from "../agents/models.ts";
import { Campaign, CampaignCreate, CampaignUpdate, Contact, campaignJson, contactJson, type CampaignRow } from "./models.ts";
import { campaignsPorts } from "./ports.ts";
import { contactCounts } from "./repo.ts";
import { campaignStats, resultsCsv } from "./results.ts";
import * as service from "./service.ts";
import { MAX_UPLOAD_BYTES, UploadSummary, uploadContacts } from "./upload.ts";

const doc = docsFor("Campaigns");

const Stats = t.Object({
  object: t.Literal("campaign_stats"),
  campaign_id: t.String(),
  status: OneOf(CAMPAIGN_STATUSES),
  counts: t.Record(t.String(), t.Integer()),
  progress: t.Number({ description: "Share of contacts in a final state, 0–1" }),
  calls: t.Integer({ description: "Calls placed, retries included" }),
  answered: t.Integer(),
  answer_rate: t.Union([t.Number(), t.Null()]),
  minutes: t.Number({ description: "Talk time of all calls" }),
  average_duration_seconds: t.Union([t.Number(), t.Null()], { description: "Per answered call" }),
  currency: t.String(),
  cost: t.Integer({ description: "Micro-units the wallet was charged for the campaign's calls" }),
});

export function campaignRoutes(ctx: HttpContext) {
  const json = (row: CampaignRow) => campaignJson(row, contactCounts(ctx, row.id));
  return new Elysia({ prefix: "/v1/campaigns" })
    .use(authPlugin(ctx))
    .post("/", ({ principal, body }) => status(201, json(service.createCampaign(ctx, principal.workspaceId, body))), {
      auth: "write",
      body: CampaignCreate,
      response: { 201: Campaign },
      detail: doc("createCampaign", "Create campaign"),
    })
    .get(
      "/",
      ({ principal, query }) => {
        const page = pageRequest(query);
        return toPage(service.listCampaigns(ctx, principal.workspaceId, page, query.status), page, (r) => ({ at: r.createdAt, id: r.id }), json);
      },
      { auth: "read", query: t.Object({ ...listQuery, status: t.Optional(OneOf(CAMPAIGN_STATUSES)) }), response: { 200: ListOf(Campaign) }, detail: doc("listCampaigns", "List campaigns") },
    )
    .get("/:id", ({ principal, params }) => json(service.getCampaign(ctx, principal.workspaceId, params.id)), {
      auth: "read",
      params: IdParam,
      response: { 200: Campaign },
      detail: doc("getCampaign", "One campaign with progress counts"),
    })
    .patch("/:id", ({ principal, params, body }) => json(service.updateCampaign(ctx, principal.workspaceId, params.id, body)), {
      auth: "write",
      params: IdParam,
      body: CampaignUpdate,
      response: { 200: Campaign },
      detail: doc("updateCampaign", "Concurrency, calling window, retries, agent"),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        service.deleteCampaign(ctx, principal.workspaceId, params.id);
        return noContent();
      },
      { auth: "write", params: IdParam, response: { 204: NoContent }, detail: doc("deleteCampaign", "Delete (not while running)") },
    )
    .post(
      "/:id/upload",
      async ({ principal, params, query, body }) => {
        const campaign = service.getCampaign(ctx, principal.workspaceId, params.id);
        let stream: ReadableStream<Uint8Array>;
        if (body instanceof StreamedBody) stream = body.stream;
        else {
          const file = (body as { file?: unknown } | undefined)?.file;
          if (!(file instanceof Blob)) throw invalid("file", "send the CSV as the `file` part of multipart/form-data, or as a text/csv body");
          stream = file.stream();
        }
        const summary = await uploadContacts(ctx, campaign, stream, { mode: query.mode ?? "append" });
        return status(201, summary);
      },
      {
        auth: "write",
        params: IdParam,
        query: t.Object({ mode: t.Optional(OneOf(["append", "replace"], { description: "append (default) adds to the contacts; replace swaps them, only while in draft" })) }),
        response: { 201: UploadSummary },
        detail: {
          ...doc("uploadCampaignContacts", "Upload contacts CSV"),
          "x-body-types": ["text/csv", "multipart/form-data"],
          "x-body-stream": true,
          "x-max-body-bytes": MAX_UPLOAD_BYTES + 64 * 1024,
        },
      },
    )
    .get(
      "/:id/contacts",
      ({ principal, params, query }) => {
        const limit = query.limit ?? 20;
        const after = query.cursor === undefined ? null : Number(query.cursor);
        if (after !== null && !Number.isInteger(after)) throw invalid("cursor", "is not a cursor returned by this list");
        const rows = service.listContacts(ctx, principal.workspaceId, params.id, { limit, after, status: query.status });
        const shown = rows.slice(0, limit);
        const more = rows.length > limit;
        return { data: shown.map(contactJson), has_more: more, next_cursor: more ? String(shown.at(-1)!.id) : null };
      },
      {
        auth: "read",
        params: IdParam,
        query: t.Object({ ...listQuery, status: t.Optional(OneOf(CONTACT_STATUSES)) }),
        response: { 200: ListOf(Contact) },
        detail: doc("listCampaignContacts", "Contacts with per-contact status"),
      },
    )
    .post("/:id/start", ({ principal, params }) => json(service.startCampaign(ctx, principal.workspaceId, params.id, reachOf(principal))), {
      auth: "write",
      params: IdParam,
      response: { 200: Campaign },
      detail: doc("startCampaign", "Start (or resume) dialing"),
    })
    .post("/:id/pause", ({ principal, params }) => json(service.pauseCampaign(ctx, principal.workspaceId, params.id)), {
      auth: "write",
      params: IdParam,
      response: { 200: Campaign },
      detail: doc("pauseCampaign", "Pause"),
    })
    .post("/:id/cancel", ({ principal, params }) => json(service.cancelCampaign(ctx, principal.workspaceId, params.id)), {
      auth: "write",
      params: IdParam,
      response: { 200: Campaign },
      detail: doc("cancelCampaign", "Cancel for good"),
    })
    .get(
      "/:id/results",
      ({ principal, params }) => {
        const campaign = service.getCampaign(ctx, principal.workspaceId, params.id);
        // Extraction columns come from the agent as it is now; an agent since deleted leaves none.
        const agent = campaignsPorts(ctx).findAgent(principal.workspaceId, campaign.agentId);
        const fields = agent ? configOf(agent).extraction.map((field) => field.name) : [];
        return new Response(resultsCsv(ctx, campaign, fields), {
          headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${campaign.id}-results.csv"` },
        });
      },
      { auth: "read", params: IdParam, response: { 200: t.String({ description: "text/csv, one row per contact" }) }, detail: { ...doc("getCampaignResults", "Results as CSV"), "x-response-types": ["text/csv"] } },
    )
    .get("/:id/stats", ({ principal, params }) => campaignStats(ctx, service.getCampaign(ctx, principal.workspaceId, params.id)), {
      auth: "read",
      params: IdParam,
      response: { 200: Stats },
      detail: doc("getCampaignStats", "Outcome counts, answer rate, minutes, cost"),
    });
}
