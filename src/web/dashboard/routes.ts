// Serves the dashboard: its HTML page at every path the app's router draws (at the root, and under the
// path of --dashboard-url when it has one), and its hashed script and stylesheet, cached for good.
import { Elysia } from "elysia";
import { ASSET_PREFIX, BASE_META, PAGES } from "../../dashboard/paths.ts";
import type { HttpContext } from "../../http/context.ts";
import { notFound } from "../../http/errors.ts";
import { requestBrand } from "../../http/host-brand.ts";
import { escapeHtml, htmlPage, scriptResponse, textAsset, type ScriptAsset } from "../assets.ts";
import { buildDashboard, type DashboardBuild } from "./build.ts";
import { EMBEDDED_DASHBOARD } from "./embedded.ts";

/** No inline script or style, nothing from another origin: branding is applied through the CSSOM. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  // Call recordings play from blob: URLs (fetched with the session's credentials through the client library).
  "media-src blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  // The widgets screen shows a widget's preview page (served by this server) in a frame.
  "frame-src 'self'",
  "frame-ancestors 'none'",
].join("; ");

interface Bundle {
  build: DashboardBuild;
  assets: Map<string, ScriptAsset>;
}

let bundle: Promise<Bundle> | null = null;

/** The embedded bundle, or (from source) one built on first use and kept for the life of the process. */
export function dashboardBundle(): Promise<Bundle> {
  if (!bundle) {
    const loading = (EMBEDDED_DASHBOARD ? Promise.resolve(EMBEDDED_DASHBOARD) : buildDashboard()).then((build) => ({
      build,
      assets: new Map(Object.entries(build.files).map(([name, body]) => [name, textAsset(body)])),
    }));
    bundle = loading;
    loading.catch(() => {
      if (bundle === loading) bundle = null; // a failed build is tried again on the next request
    });
  }
  return bundle;
}

/** The path of --dashboard-url ("" when it has none, or when there is no such URL). */
export function dashboardBasePath(dashboardUrl: string): string {
  return dashboardUrl ? new URL(dashboardUrl).pathname.replace(/\/+$/, "") : "";
}

function page(build: DashboardBuild, base: string, title: string): string {
  const asset = (name: string) => escapeHtml(`${base}${ASSET_PREFIX}${name}`);
  return htmlPage(
    `<meta name="color-scheme" content="light dark">
<meta name="referrer" content="no-referrer">
<meta name="${BASE_META}" content="${escapeHtml(base)}">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${asset(build.style)}">
<script type="module" src="${asset(build.script)}"></script>`,
    `<div id="app"></div>
<noscript>This dashboard needs JavaScript.</noscript>`,
  );
}

export function dashboardRoutes(ctx: HttpContext) {
  const bases = [...new Set(["", dashboardBasePath(ctx.config.dashboardUrl)])];
  const app = new Elysia({ name: "dashboard" });
  for (const base of bases) {
    const shell = async ({ request }: { request: Request }) => {
      const { build } = await dashboardBundle();
      return new Response(page(build, base, requestBrand(ctx, request).productName), {
        headers: {
          "content-type": "text/html; charset=utf-8",
          "cache-control": "no-cache",
          "content-security-policy": DASHBOARD_CSP,
          "referrer-policy": "no-referrer",
          "x-content-type-options": "nosniff",
          "x-frame-options": "DENY",
        },
      });
    };
    const paths = new Set(Object.values(PAGES).map((path) => (base + path === "" ? "/" : base + path)));
    if (base) paths.add(`${base}/`);
    for (const path of paths) app.get(path, shell, { detail: { hide: true } });
    app.get(`${base}${ASSET_PREFIX}:file`, async ({ params, request }) => {
      const { assets } = await dashboardBundle();
      const asset = assets.get(params.file);
      if (!asset) throw notFound("file");
      const type = params.file.endsWith(".css") ? "text/css; charset=utf-8" : "text/javascript; charset=utf-8";
      // The name carries the content's hash: a new build is a new name.
      return scriptResponse(asset, request, { "content-type": type, "cache-control": "public, max-age=31536000, immutable" });
    }, { detail: { hide: true } });
  }
  return app;
}
