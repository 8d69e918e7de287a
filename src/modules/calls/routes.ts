import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { linkBase } from "../../http/host-brand.ts";
import { docsFor } from "../../http/docs.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, pageRequest, toPage } from "../../http/pagination.ts";
import { csvLine } from "../../lib/csv.ts";
import { toIso } from "../../lib/time.ts";
import { E164 } from "../phone-numbers/models.ts";
import type { TurnRecord } from "./lifecycle.ts";
import { callCosts } from "./costs.ts";
import { Call, CallEvent, CallsQuery, OutboundBody, Turn, callJson, transcriptText } from "./models.ts";
import { fileResponse } from "./recording.ts";
import { openMp3, openRecording } from "./recording-store.ts";
import type { CarrierRegistry } from "../../telephony/registry.ts";
import { reachOf } from "../../telephony/reach.ts";
import * as service from "./service.ts";
import { controlCall } from "./controls.ts";

const doc = docsFor("Calls");

const EXPORT_PAGE = 500;
const EXPORT_COLUMNS = ["call_id", "created_at", "direction", "agent_id", "from", "to", "status", "end_reason", "duration_seconds", "started_at", "ended_at", "summary", "extracted", "metadata"];

export function callRoutes(ctx: HttpContext, carriers: CarrierRegistry) {
  // Links point at the host the request came to (a reseller's verified domain, else the public URL).
  const json = (row: Parameters<typeof callJson>[0], http: Request) => callJson(row, linkBase(ctx, http), callCosts(ctx, row.workspaceId, [row.id]).get(row.id)!);
  /** A page of calls with their costs read in one query. */
  const page = (rows: Parameters<typeof callJson>[0][], http: Request) => {
    const costs = callCosts(ctx, rows[0]?.workspaceId ?? "", rows.map((row) => row.id));
    const base = linkBase(ctx, http);
    return (row: Parameters<typeof callJson>[0]) => callJson(row, base, costs.get(row.id)!);
  };
  return new Elysia({ prefix: "/v1/calls" })
    .use(authPlugin(ctx))
    .get(
      "/",
      ({ principal, query, request: http }) => {
        const request = pageRequest(query);
        const rows = service.listCalls(ctx, principal.workspaceId, query, request);
        return toPage(rows, request, (r) => ({ at: r.createdAt, id: r.id }), page(rows, http));
      },
      { auth: "read", query: CallsQuery, response: { 200: ListOf(Call) }, detail: doc("listCalls", "List calls; filter by agent, status, direction, number, time") },
    )
    .get(
      "/export",
      ({ principal, query, request }) => {
        const conditions = service.callConditions(principal.workspaceId, query);
        // Streamed a page at a time as the client reads: an export of a busy year is never built in memory.
        let after: { at: number; id: string } | null = null;
        const stream = new ReadableStream<string>(
          {
            start(controller) {
              controller.enqueue(csvLine(EXPORT_COLUMNS));
            },
            pull(controller) {
              const rows = service.callsInOrder(ctx, conditions, after, EXPORT_PAGE);
              const render = page(rows, request);
              const lines = rows.map((row) => {
                const c = render(row);
                return csvLine([c.id, c.created_at, c.direction, c.agent_id, c.from, c.to, c.status, c.end_reason, c.duration_seconds, c.started_at, c.ended_at, c.summary, c.extracted, c.metadata]);
              });
              if (lines.length) controller.enqueue(lines.join(""));
              const last = rows.at(-1);
              if (last) after = { at: last.createdAt, id: last.id };
              if (rows.length < EXPORT_PAGE) controller.close();
            },
          },
          { highWaterMark: 1 },
        );
        return new Response(stream.pipeThrough(new TextEncoderStream()), {
          headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="calls-${new Date(ctx.clock.now()).toISOString().slice(0, 10)}.csv"` },
        });
      },
      {
        auth: "read",
        query: t.Omit(CallsQuery, ["limit", "cursor"]),
        response: { 200: t.String({ description: "text/csv, one row per call" }) },
        detail: { ...doc("exportCalls", "Calls as CSV"), "x-response-types": ["text/csv"] },
      },
    )
    .post("/outbound", ({ principal, body, request }) => status(201, json(service.createOutboundCall(ctx, carriers, principal.workspaceId, body, { reach: reachOf(principal) }), request)), {
      auth: "write",
      body: OutboundBody,
      response: { 201: Call },
      detail: doc("createOutboundCall", "Place an outbound call"),
    })
    .get("/:id", ({ principal, params, request }) => json(service.getCall(ctx, principal.workspaceId, params.id), request), {
      auth: "read",
      params: IdParam,
      response: { 200: Call },
      detail: doc("getCall", "Call detail"),
    })
    .get(
      "/:id/recording",
      async ({ principal, params, request }) => {
        const call = service.getCall(ctx, principal.workspaceId, params.id);
        const wav = await openRecording(ctx, call);
        const accept = request.headers.get("accept") ?? "";
        const wantsMp3 = /audio\/(mpeg|mp3)/.test(accept) && !/audio\/(wav|x-wav|wave)/.test(accept);
        if (wantsMp3) return fileResponse(await openMp3(ctx, call), "audio/mpeg", request.headers.get("range"), { vary: "accept" });
        return fileResponse(wav, "audio/wav", request.headers.get("range"), { vary: "accept" });
      },
      {
        auth: "read",
        params: IdParam,
        response: { 200: t.String({ description: "audio/wav (stereo: caller left, agent right), or audio/mpeg when Accept asks; Range supported" }) },
        detail: { ...doc("getCallRecording", "Recording audio (content negotiation; Range requests)"), "x-response-types": ["audio/wav", "audio/mpeg"] },
      },
    )
    .get(
      "/:id/recording.mp3",
      async ({ principal, params, request }) => {
        const call = service.getCall(ctx, principal.workspaceId, params.id);
        return fileResponse(await openMp3(ctx, call), "audio/mpeg", request.headers.get("range"));
      },
      { auth: "read", params: IdParam, response: { 200: t.String({ description: "audio/mpeg; Range supported" }) }, detail: { ...doc("getCallRecordingMp3", "Recording as MP3 (the URL events carry)"), "x-response-types": ["audio/mpeg"] } },
    )
    .get(
      "/:id/transcript",
      ({ principal, params, query }) => {
        const call = service.getCall(ctx, principal.workspaceId, params.id);
        const turns = (call.transcript as TurnRecord[] | null) ?? [];
        if (query.format === "text") {
          const text = transcriptText(turns);
          return new Response(text + (text ? "\n" : ""), { headers: { "content-type": "text/plain; charset=utf-8" } });
        }
        return { object: "transcript" as const, call_id: call.id, erased: call.erasedAt !== null, turns };
      },
      {
        auth: "read",
        params: IdParam,
        query: t.Object({ format: t.Optional(t.Union([t.Literal("json"), t.Literal("text")])) }),
        response: { 200: t.Object({ object: t.Literal("transcript"), call_id: t.String(), erased: t.Boolean(), turns: t.Array(Turn) }) },
        detail: { ...doc("getCallTranscript", "Transcript (JSON turns; `?format=text` for plain text)"), "x-response-types": ["application/json", "text/plain"] },
      },
    )
    .get(
      "/:id/events",
      ({ principal, params }) => {
        const call = service.getCall(ctx, principal.workspaceId, params.id);
        const data = service.callTimeline(ctx, call).map((event) => ({ object: "call_event" as const, type: event.type, offset_ms: event.offsetMs, at: toIso(event.createdAt), data: event.data }));
        return { data, has_more: false, next_cursor: null };
      },
      { auth: "read", params: IdParam, response: { 200: ListOf(CallEvent) }, detail: doc("getCallEvents", "Timeline: status changes, turns, tool calls, latencies") },
    )
    .post(
      "/:id/hangup",
      async ({ principal, params, request }) => {
        await controlCall(ctx, principal.workspaceId, params.id, { action: "hangup" });
        return status(202, json(service.getCall(ctx, principal.workspaceId, params.id), request));
      },
      { auth: "write", params: IdParam, response: { 202: Call }, detail: doc("hangupCall", "End a live call") },
    )
    .post(
      "/:id/transfer",
      async ({ principal, params, body, request }) => {
        await controlCall(ctx, principal.workspaceId, params.id, { action: "transfer", to: body.to, reason: body.reason ?? null });
        return status(202, json(service.getCall(ctx, principal.workspaceId, params.id), request));
      },
      {
        auth: "write",
        params: IdParam,
        body: t.Object({ to: t.Union([E164, t.String({ pattern: "^sips?:.+" })], { description: "E.164 or SIP URI" }), reason: t.Optional(t.String({ maxLength: 200 })) }, { additionalProperties: false }),
        response: { 202: Call },
        detail: doc("transferCall", "Transfer a live call to a human"),
      },
    )
    .post(
      "/:id/say",
      async ({ principal, params, body }) => {
        await controlCall(ctx, principal.workspaceId, params.id, { action: "say", text: body.text });
        return status(202, { status: "accepted" as const });
      },
      {
        auth: "write",
        params: IdParam,
        body: t.Object({ text: t.String({ minLength: 1, maxLength: 2000 }) }, { additionalProperties: false }),
        response: { 202: t.Object({ status: t.Literal("accepted") }) },
        detail: doc("sayOnCall", "Make the agent say something now"),
      },
    )
    .delete(
      "/:id",
      async ({ principal, params }) => {
        await service.eraseCall(ctx, principal.workspaceId, params.id);
        return noContent();
      },
      { auth: "write", params: IdParam, response: { 204: NoContent }, detail: doc("eraseCall", "Erase a call's recording, transcript and extracted data") },
    );
}
