import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { Accepted } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage, type PageRequest } from "../../http/pagination.ts";
import { requestMeta } from "../../http/request-meta.ts";
import { csvLine } from "../../lib/csv.ts";
import type { CursorPosition } from "../../lib/cursor.ts";
import { placeDemoCall, startDemoVerification, type DemoServices } from "./demo.ts";
import { FRONT_DOOR_LIMITS as LIMITS } from "./limits.ts";
import {
  ClientEvent,
  clientEventJson,
  ContactBody,
  ContactMessage,
  contactMessageJson,
  ContactReceipt,
  DemoCall,
  DemoCallBody,
  DemoVerification,
  DemoVerifyBody,
  EventBatchBody,
  EventBatchReceipt,
  NewsletterFilter,
  NewsletterListQuery,
  NewsletterState,
  NewsletterSubscribeBody,
  NewsletterSubscription,
  NewsletterTokenBody,
  newsletterJson,
  type NewsletterRow,
} from "./models.ts";
import * as repo from "./repo.ts";
import { confirmNewsletter, ingestClientEvents, receiveContactMessage, subscribeNewsletter, unsubscribeNewsletter, unsubscribeUrl } from "./service.ts";

const doc = docsFor("Front door");

const FORM_DEFENCES =
  "Public, counted against the per-IP public rate limit. Spam defences: `form_started_at` (sent sooner than " +
  `${LIMITS.minFormMs / 1000} s after the form was shown: 422) and the honeypot \`website\` (filled: 422); bodies over ${LIMITS.formBodyBytes / 1024} KiB: 413.`;

/** The public site's front door (152-155, with the newsletter's confirm and unsubscribe steps and the demo's verification), and the operator's view of what it received. */
export function frontDoorRoutes(ctx: HttpContext, services: DemoServices) {
  return new Elysia().use(publicRoutes(ctx, services)).use(operatorRoutes(ctx));
}

function publicRoutes(ctx: HttpContext, services: DemoServices) {
  const visitor = (request: Request) => {
    const meta = requestMeta(request);
    return { ip: meta.ip, userAgent: meta.userAgent };
  };
  const formDetail = (operationId: string, summary: string, description: string) => ({ ...doc(operationId, summary, `${description}\n\n${FORM_DEFENCES}`), "x-max-body-bytes": LIMITS.formBodyBytes });
  return new Elysia({ prefix: "/v1" })
    .use(authPlugin(ctx))
    .post("/contact", ({ body, request }) => status(201, receiveContactMessage(ctx, body, visitor(request))), {
      public: true,
      body: ContactBody,
      response: { 201: ContactReceipt },
      detail: formDetail(
        "sendContactMessage",
        "Contact form",
        `Stored for the operator (GET /v1/admin/contact-messages). At most ${LIMITS.contactsPerVisitor} messages per client address and hour (then 429 with Retry-After).`,
      ),
    })
    .post(
      "/newsletter/subscribe",
      ({ body, request }) => {
        subscribeNewsletter(ctx, body, visitor(request));
        return status(202, { status: "accepted" as const });
      },
      {
        public: true,
        body: NewsletterSubscribeBody,
        response: { 202: Accepted },
        detail: formDetail(
          "subscribeNewsletter",
          "Newsletter signup (idempotent)",
          "Double opt-in: the address receives a confirmation link (POST /v1/newsletter/confirm with its token; links last 7 days). " +
            "Always 202 with the same body, whether the address is new, pending, confirmed or unsubscribed: nobody learns who subscribed. " +
            "Signing up again while pending sends a fresh link (the newest works); a confirmed address is left as it is.",
        ),
      },
    )
    .post("/newsletter/confirm", ({ body }) => confirmNewsletter(ctx, body.token), {
      public: true,
      body: NewsletterTokenBody,
      response: { 200: NewsletterState },
      detail: {
        ...doc("confirmNewsletter", "Confirm a newsletter signup", "The token of the confirmation link; opening it again answers the same. An unknown, replaced or expired token is 422 on `token`."),
        "x-max-body-bytes": LIMITS.formBodyBytes,
      },
    })
    .post("/newsletter/unsubscribe", ({ body }) => unsubscribeNewsletter(ctx, body.token), {
      public: true,
      body: NewsletterTokenBody,
      response: { 200: NewsletterState },
      detail: {
        ...doc(
          "unsubscribeNewsletter",
          "Unsubscribe from the newsletter",
          "The token of a subscriber's `unsubscribe_url` (the operator's list carries it, to put in every newsletter). Unsubscribing twice answers the same.",
        ),
        "x-max-body-bytes": LIMITS.formBodyBytes,
      },
    })
    .post("/events", ({ body, request }) => status(202, ingestClientEvents(ctx, body.events, visitor(request))), {
      public: true,
      body: EventBatchBody,
      response: { 202: EventBatchReceipt },
      detail: {
        ...doc(
          "ingestClientEvents",
          "Client-side event ingest",
          `A batch of 1-${LIMITS.eventsPerBatch} events from a site's pages (page views, clicks, sign-ups), checked one by one: any bad event refuses the whole batch, ` +
            `with each problem named \`events[i].field\`. \`properties\` up to ${LIMITS.eventPropertyBytes} bytes as JSON per event; the body up to ${LIMITS.eventBodyBytes / 1024} KiB (413 beyond).`,
        ),
        "x-max-body-bytes": LIMITS.eventBodyBytes,
      },
    })
    .post("/demo/verify", ({ body, request }) => status(201, startDemoVerification(ctx, services, body, visitor(request))), {
      public: true,
      body: DemoVerifyBody,
      response: { 201: DemoVerification },
      detail: formDetail(
        "verifyDemoNumber",
        "Prove a number before the demo calls it",
        `Places a short call to \`to\` whose agent speaks a ${LIMITS.demoCodeDigits}-digit code; send the code with the returned id to POST /v1/demo/call within ${LIMITS.demoCodeLifetimeMs / 60_000} minutes ` +
          `(${LIMITS.demoCodeAttempts} attempts). Counts toward the demo's caps like a demo call. 409 \`demo_unavailable\` when the instance does not verify numbers (then call the demo directly) or offers no demo.`,
      ),
    })
    .post("/demo/call", ({ body, request }) => status(201, placeDemoCall(ctx, services, body, visitor(request))), {
      public: true,
      body: DemoCallBody,
      response: { 201: DemoCall },
      detail: formDetail(
        "createDemoCall",
        "Demo call",
        "A real call from the operator's demo agent to the visitor's phone. `to` must be a valid fixed-line or mobile number in E.164 (no premium-rate, shared-cost, toll-free or short codes). " +
          "When the instance verifies numbers, `verification_id` and `code` from POST /v1/demo/verify are required. " +
          `Caps: ${LIMITS.demoCallsPerNumber} calls per number and ${LIMITS.demoCallsPerVisitor} per client address within 24 hours, verification calls included (429 with Retry-After). ` +
          "409 `demo_unavailable` when the instance offers no demo.",
      ),
    });
}

/** Rows read per page while a CSV export streams. */
const EXPORT_PAGE = 500;

/** A CSV streamed a page at a time as the client reads: a year of events is never built in memory. */
function csvExport<Row>(name: string, now: number, columns: string[], load: (page: PageRequest) => Row[], position: (row: Row) => CursorPosition, cells: (row: Row) => unknown[]): Response {
  let after: CursorPosition | null = null;
  const stream = new ReadableStream<string>(
    {
      start(controller) {
        controller.enqueue(csvLine(columns));
      },
      pull(controller) {
        const rows = load({ limit: EXPORT_PAGE, after });
        const shown = rows.slice(0, EXPORT_PAGE);
        if (shown.length) controller.enqueue(shown.map((row) => csvLine(cells(row))).join(""));
        const last = shown.at(-1);
        if (last) after = position(last);
        if (rows.length <= EXPORT_PAGE) controller.close();
      },
    },
    { highWaterMark: 1 },
  );
  return new Response(stream.pipeThrough(new TextEncoderStream()), {
    headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}-${new Date(now).toISOString().slice(0, 10)}.csv"` },
  });
}

const byCreation = (row: { createdAt: number; id: string }) => ({ at: row.createdAt, id: row.id });
const byReceipt = (row: { receivedAt: number; id: string }) => ({ at: row.receivedAt, id: row.id });

function operatorRoutes(ctx: HttpContext) {
  const subscription = (row: NewsletterRow) => newsletterJson(row, unsubscribeUrl(ctx, row));
  const csv = (description: string) => ({ 200: t.String({ description }) });
  return new Elysia({ prefix: "/v1/admin" })
    .use(authPlugin(ctx))
    .get(
      "/contact-messages",
      ({ query }) => {
        const page = pageRequest(query);
        return toPage(repo.listContactMessages(ctx.db, page), page, byCreation, contactMessageJson);
      },
      { auth: "operator", query: t.Object(listQuery), response: { 200: ListOf(ContactMessage) }, detail: doc("listContactMessages", "Contact form messages", "Newest first.") },
    )
    .get(
      "/contact-messages/export",
      () =>
        csvExport("contact-messages", ctx.clock.now(), ["id", "created_at", "name", "email", "company", "message", "visitor", "user_agent"], (page) => repo.listContactMessages(ctx.db, page), byCreation, (row) => {
          const m = contactMessageJson(row);
          return [m.id, m.created_at, m.name, m.email, m.company, m.message, m.visitor, m.user_agent];
        }),
      { auth: "operator", response: csv("text/csv, one row per message, newest first"), detail: { ...doc("exportContactMessages", "Contact form messages as CSV"), "x-response-types": ["text/csv"] } },
    )
    .get(
      "/newsletter-subscriptions",
      ({ query }) => {
        const page = pageRequest(query);
        return toPage(repo.listSubscriptions(ctx.db, query, page), page, byCreation, subscription);
      },
      {
        auth: "operator",
        query: NewsletterListQuery,
        response: { 200: ListOf(NewsletterSubscription) },
        detail: doc("listNewsletterSubscriptions", "Newsletter subscriptions", "Newest first; `status=confirmed` is the mailing list (each with the `unsubscribe_url` to put in what you send)."),
      },
    )
    .get(
      "/newsletter-subscriptions/export",
      ({ query }) =>
        csvExport(
          "newsletter-subscriptions",
          ctx.clock.now(),
          ["id", "email", "status", "source", "created_at", "confirmed_at", "unsubscribe_url"],
          (page) => repo.listSubscriptions(ctx.db, query, page),
          byCreation,
          (row) => {
            const s = subscription(row);
            return [s.id, s.email, s.status, s.source, s.created_at, s.confirmed_at, s.unsubscribe_url];
          },
        ),
      {
        auth: "operator",
        query: t.Object(NewsletterFilter),
        response: csv("text/csv, one row per subscription, newest first"),
        detail: { ...doc("exportNewsletterSubscriptions", "Newsletter subscriptions as CSV"), "x-response-types": ["text/csv"] },
      },
    )
    .get(
      "/client-events",
      ({ query }) => {
        const page = pageRequest(query);
        return toPage(repo.listClientEvents(ctx.db, page), page, byReceipt, clientEventJson);
      },
      { auth: "operator", query: t.Object(listQuery), response: { 200: ListOf(ClientEvent) }, detail: doc("listClientEvents", "Client-side events", "Newest received first.") },
    )
    .get(
      "/client-events/export",
      () =>
        csvExport("client-events", ctx.clock.now(), ["id", "name", "occurred_at", "received_at", "anonymous_id", "url", "visitor", "properties"], (page) => repo.listClientEvents(ctx.db, page), byReceipt, (row) => {
          const e = clientEventJson(row);
          return [e.id, e.name, e.occurred_at, e.received_at, e.anonymous_id, e.url, e.visitor, e.properties];
        }),
      { auth: "operator", response: csv("text/csv, one row per event, newest received first"), detail: { ...doc("exportClientEvents", "Client-side events as CSV"), "x-response-types": ["text/csv"] } },
    );
}
