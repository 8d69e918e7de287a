import { Elysia, status, t } from "elysia";
import type { HttpContext } from "../../http/context.ts";
import { admission, authPlugin } from "../../http/auth.ts";
import { docsFor } from "../../http/docs.ts";
import { linkBase, rebaseLink } from "../../http/host-brand.ts";
import { ApiError, notFound } from "../../http/errors.ts";
import { IdParam, NoContent, noContent } from "../../http/models.ts";
import { ListOf, listQuery, pageRequest, toPage } from "../../http/pagination.ts";
import { requestMeta } from "../../http/request-meta.ts";
import { assertNotSuspended } from "../../http/suspensions.ts";
import { embedScript, previewPage, scriptResponse } from "../../web/assets.ts";
import { ChatBody, ChatReply, Widget, WidgetConfig, WidgetCreate, WidgetUpdate, VoiceToken, embedUrls, widgetConfigJson, widgetJson, type WidgetLook } from "./models.ts";
import { normalizeRequestOrigin, originAllowed, originOfUrl } from "./origins.ts";
import { listWidgets, findPublicWidget, type WidgetRow } from "./repo.ts";
import { createWidget, deleteWidget, getWidget, updateWidget, widgetAgent, widgetChat, widgetVoiceToken, type WidgetServices } from "./service.ts";

const doc = docsFor("Widgets");

/** Widgets (93-102): the workspace's CRUD, and the public routes a visitor's page calls. */
export function widgetRoutes(ctx: HttpContext, services: WidgetServices) {
  return new Elysia().use(widgetAdminRoutes(ctx, services)).use(widgetPublicRoutes(ctx, services));
}

function widgetAdminRoutes(ctx: HttpContext, services: WidgetServices) {
  /** The embed on the host of the request (a reseller's verified domain, else the public URL). */
  const json = (row: WidgetRow, request: Request) => {
    const widget = widgetJson(row, linkBase(ctx, request));
    // The preview page counts on the instance's own origin being allowed: it stays on the public URL.
    return { ...widget, embed: { ...widget.embed, preview_url: embedUrls(ctx.publicUrl, row.id).preview_url } };
  };
  return new Elysia({ prefix: "/v1/widgets" })
    .use(authPlugin(ctx))
    .post("/", ({ principal, body, request }) => status(201, json(createWidget(ctx, principal.workspaceId, body, services.agentConfig), request)), {
      auth: "write",
      body: WidgetCreate,
      response: { 201: Widget },
      detail: doc("createWidget", "Create widget", "A chat and voice bubble for your web site, bound to one agent. Paste `embed.snippet` into your pages."),
    })
    .get(
      "/",
      ({ principal, query, request }) => {
        const page = pageRequest(query);
        return toPage(listWidgets(ctx.db, principal.workspaceId, page), page, (r) => ({ at: r.createdAt, id: r.id }), (row) => json(row, request));
      },
      { auth: "read", query: t.Object(listQuery), response: { 200: ListOf(Widget) }, detail: doc("listWidgets", "List widgets") },
    )
    .get("/:id", ({ principal, params, request }) => json(getWidget(ctx, principal.workspaceId, params.id), request), {
      auth: "read",
      params: IdParam,
      response: { 200: Widget },
      detail: doc("getWidget", "Get widget"),
    })
    .patch("/:id", ({ principal, params, body, request }) => json(updateWidget(ctx, principal.workspaceId, params.id, body, services.agentConfig), request), {
      auth: "write",
      params: IdParam,
      body: WidgetUpdate,
      response: { 200: Widget },
      detail: doc("updateWidget", "Update widget", "Fields given replace the stored ones; `look` merges field by field."),
    })
    .delete(
      "/:id",
      ({ principal, params }) => {
        deleteWidget(ctx, principal.workspaceId, params.id);
        return noContent();
      },
      { auth: "write", params: IdParam, response: { 204: NoContent }, detail: doc("deleteWidget", "Delete widget", "Every public route of the widget answers 404 from then on.") },
    );
}

/** The origin-checked public routes, with the path of each under /v1/widgets/{id}/. */
const ORIGIN_CHECKED = /^\/v1\/widgets\/([^/]+)\/(config|chat|voice-token)\/?$/;
/** Preflight answers, cached by the browser for this long (seconds). */
const PREFLIGHT_MAX_AGE = 600;

function widgetPublicRoutes(ctx: HttpContext, services: WidgetServices) {
  const admit = admission(ctx);
  /** The widget each request was admitted for (looked up once per request, never across requests). */
  const widgetOf = new WeakMap<Request, WidgetRow>();
  const ownOrigin = () => originOfUrl(ctx.publicUrl);

  /** The page's origin: its Origin header, or this instance for a same-origin GET (browsers send none then). */
  const pageOrigin = (request: Request): string | null => {
    const header = request.headers.get("origin");
    if (header !== null) return normalizeRequestOrigin(header);
    return request.headers.get("sec-fetch-site") === "same-origin" ? ownOrigin() : null;
  };
  // The instance's own pages (the preview) may always use a widget.
  const allowed = (widget: WidgetRow, origin: string | null) => origin !== null && (origin === ownOrigin() || originAllowed(widget.allowedOrigins, origin));

  /** The widget a request names, read once per request (the CORS hook and the route both need it). */
  const seen = new WeakMap<Request, WidgetRow | null>();
  const lookUp = (request: Request, id: string): WidgetRow | null => {
    let widget = seen.get(request);
    if (widget === undefined) seen.set(request, (widget = findPublicWidget(ctx.db, id) ?? null));
    return widget;
  };

  /** Admits the request (public limit), then 404 for an unknown or deleted widget, then (when asked) 403 for a page not allowed. */
  const visitor = (originChecked: boolean) => async ({ request, params }: { request: Request; params: Record<string, string> }) => {
    await admit(request, "public");
    const widget = lookUp(request, params.id);
    if (!widget) throw notFound("widget");
    assertNotSuspended(ctx, widget.workspaceId); // a suspended tenant's widgets stop with its keys and calls
    if (originChecked && !allowed(widget, pageOrigin(request))) {
      const header = request.headers.get("origin");
      throw new ApiError(
        "forbidden",
        header === null
          ? "the request has no Origin header: this endpoint answers the widget on a web page listed in allowed_origins"
          : `origin ${header.slice(0, 200)} may not use this widget; its owner can add it to allowed_origins`,
      );
    }
    widgetOf.set(request, widget);
  };
  const admitted = (request: Request) => widgetOf.get(request)!;

  return (
    new Elysia({ prefix: "/v1/widgets" })
      .use(authPlugin(ctx))
      // CORS headers are decided before anything else runs, so every answer to an allowed page (429s and
      // validation errors included) is readable by it; a page not allowed never gets them.
      .onRequest(({ request, set }) => {
        // Every request of the app passes here: parse the URL only for the widget paths.
        if (!request.url.includes("/v1/widgets/")) return;
        const path = ORIGIN_CHECKED.exec(new URL(request.url).pathname);
        if (!path) return;
        set.headers.vary = "Origin";
        const origin = request.headers.get("origin");
        if (origin === null) return;
        let id: string;
        try {
          id = decodeURIComponent(path[1]);
        } catch {
          return;
        }
        const widget = lookUp(request, id);
        if (widget && allowed(widget, normalizeRequestOrigin(origin))) set.headers["access-control-allow-origin"] = origin;
      })
      .get(
        "/:id/config",
        ({ request, set }) => {
          const widget = admitted(request);
          // Always asked again: a deleted widget, or a changed look, shows on the next page load.
          set.headers["cache-control"] = "no-cache";
          return widgetConfigJson(widget, widgetAgent(widget, services.agentConfig)?.name ?? null);
        },
        {
          public: true,
          params: IdParam,
          transform: visitor(true),
          response: { 200: WidgetConfig },
          detail: doc("getWidgetConfig", "Config for embedding", "What the embed script draws: mode, look and the agent's name; nothing secret. Origin-checked (CORS for allowed origins only)."),
        },
      )
      .get(
        "/:id/embed.js",
        ({ request }) => {
          admitted(request);
          return scriptResponse(embedScript(), request);
        },
        {
          public: true,
          params: IdParam,
          transform: visitor(false),
          response: { 200: t.String({ description: "text/javascript: the widget runtime (ETag; 304 on If-None-Match)" }) },
          detail: { ...doc("getWidgetEmbedScript", "Runtime JavaScript", "Load it with the widget's `embed.snippet`. Not origin-checked (a script element sends no Origin); the data routes are."), "x-response-types": ["text/javascript"] },
        },
      )
      .post("/:id/chat", ({ request, body }) => widgetChat(ctx, services, admitted(request), requestMeta(request).ip, body), {
        public: true,
        params: IdParam,
        body: ChatBody,
        transform: visitor(true),
        response: { 200: ChatReply },
        detail: doc(
          "widgetChat",
          "Send a chat message",
          "A visitor's message to the widget's agent. Without `session_id` a new conversation starts: the widget's `look.greeting` is its greeting (the embed shows it), and the agent's `first_message`, a call's greeting, is not said; the reply begins with whatever a flow says before it listens, then answers. " +
            "Limits: 2000 characters per message, 50 messages per session (then 409), 20 new sessions per visitor and hour (then 429 with Retry-After). Origin-checked.",
        ),
      })
      .options("/:id/chat", () => preflight(), { public: true, params: IdParam, transform: visitor(true), detail: { hide: true } })
      .get(
        "/:id/preview",
        ({ request }) => {
          const widget = admitted(request);
          const page = previewPage({ widgetId: widget.id, baseUrl: ctx.publicUrl, title: (widget.look as WidgetLook).title });
          return new Response(page, {
            headers: {
              "content-type": "text/html; charset=utf-8",
              "content-security-policy": previewPolicy(ctx.publicUrl, ctx.config.dashboardUrl),
              "cache-control": "no-store",
              "referrer-policy": "no-referrer",
              "x-content-type-options": "nosniff",
            },
          });
        },
        {
          public: true,
          params: IdParam,
          transform: visitor(false),
          response: { 200: t.String({ description: "text/html: a page embedding the widget as a customer's site would" }) },
          detail: { ...doc("getWidgetPreview", "Standalone preview page", "Works without adding an origin: the instance's own origin may always use its widgets."), "x-response-types": ["text/html"] },
        },
      )
      .post("/:id/voice-token", ({ request }) => {
        const token = widgetVoiceToken(services, admitted(request), pageOrigin(request)!);
        return status(201, { ...token, url: rebaseLink(ctx, request, token.url) });
      }, {
        public: true,
        params: IdParam,
        transform: visitor(true),
        response: { 201: VoiceToken },
        detail: doc(
          "createWidgetVoiceToken",
          "Browser voice token for a widget visitor",
          "Origin-checked. The widget's mode must include voice. The token is single use and only opens its session from the same origin.",
        ),
      })
      .options("/:id/voice-token", () => preflight(), { public: true, params: IdParam, transform: visitor(true), detail: { hide: true } })
  );
}

/** The answer to an allowed page's preflight (its Access-Control-Allow-Origin is already set). */
function preflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      "access-control-allow-methods": "POST",
      "access-control-allow-headers": "Content-Type",
      "access-control-max-age": String(PREFLIGHT_MAX_AGE),
    },
  });
}

/**
 * The preview page may run only this instance's scripts and talk only to it (HTTP and the voice
 * WebSocket). The widget styles itself with a constructable stylesheet and CSSOM, which style-src does
 * not govern, so no style source is needed.
 */
function previewPolicy(publicUrl: string, dashboardUrl: string): string {
  const self = originOfUrl(publicUrl) ?? "'self'";
  const socket = self.startsWith("http") ? self.replace(/^http/, "ws") : "";
  const dashboard = dashboardUrl ? originOfUrl(dashboardUrl) : null;
  return [
    "default-src 'none'",
    `script-src ${self}`,
    `connect-src ${self} ${socket}`.trim(),
    `img-src ${self} https: data:`,
    "media-src blob:",
    "style-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    // The dashboard may show the preview in a frame.
    `frame-ancestors 'self'${dashboard && dashboard !== self ? ` ${dashboard}` : ""}`,
  ].join("; ");
}
