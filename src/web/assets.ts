// The scripts the binary serves to browsers, embedded as text (`bun build --compile` keeps them inside the
// executable), with their ETags, and the routes for the two that live under /assets/.
import { Elysia } from "elysia";
import { sha256Hex } from "../lib/crypto.ts";
import voiceClient from "./voice/client.js" with { type: "text" };
import voiceWorklet from "./voice/worklet.js" with { type: "text" };
import embed from "./widget/embed.js" with { type: "text" };

export interface ScriptAsset {
  body: string;
  /** Strong, from the content: `"sha256-<first 16 hex>"`. */
  etag: string;
  /** The body gzipped once, for clients that take it. */
  gzipped: Uint8Array;
  gzipBytes: number;
}

/** A text file to serve: its ETag and gzipped form, computed once. */
export function textAsset(body: string): ScriptAsset {
  const gzipped = Bun.gzipSync(body);
  return { body, etag: `"sha256-${sha256Hex(body).slice(0, 16)}"`, gzipped, gzipBytes: gzipped.byteLength };
}

function scriptAsset(body: string): () => ScriptAsset {
  let asset: ScriptAsset | null = null;
  return () => (asset ??= textAsset(body));
}

/**
 * A script as browsers should get it: cached 5 minutes, revalidated by ETag (304 on a matching
 * If-None-Match, weak tags, lists and `*` included), gzipped when the client takes it.
 */
export function scriptResponse(asset: ScriptAsset, request: Request, extraHeaders: Record<string, string> = {}): Response {
  const headers: Record<string, string> = {
    "content-type": "text/javascript; charset=utf-8",
    "cache-control": "public, max-age=300",
    etag: asset.etag,
    vary: "Accept-Encoding",
    "x-content-type-options": "nosniff",
    ...extraHeaders,
  };
  const match = request.headers.get("if-none-match");
  if (match && match.split(",").some((tag) => tag.trim() === "*" || tag.trim().replace(/^W\//, "") === asset.etag)) return new Response(null, { status: 304, headers });
  if (!/\bgzip\b/.test(request.headers.get("accept-encoding") ?? "")) return new Response(asset.body, { headers });
  return new Response(asset.gzipped, { headers: { ...headers, "content-encoding": "gzip" } });
}

/** The widget runtime, served at /v1/widgets/{id}/embed.js. */
export const embedScript = scriptAsset(embed);
/** The browser voice client (defines window.ParleyVoice), served at /assets/voice-client.js. */
export const voiceClientScript = scriptAsset(voiceClient);
/** The AudioWorklet module the voice client loads, served at /assets/voice-worklet.js. */
export const voiceWorkletScript = scriptAsset(voiceWorklet);

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/** A neutral standalone page that embeds a widget the way a customer's site would. */
export function previewPage(options: { widgetId: string; baseUrl: string; title: string }): string {
  const title = escapeHtml(options.title);
  const src = escapeHtml(`${options.baseUrl.replace(/\/+$/, "")}/v1/widgets/${encodeURIComponent(options.widgetId)}/embed.js`);
  return htmlPage(
    `<meta name="robots" content="noindex">\n<title>Preview: ${title}</title>`,
    `<h1>Preview: ${title}</h1>
<p>This page shows the widget as visitors of your site will see it. Open it with the button in the corner.</p>
<script src="${src}" async></script>`,
  );
}

/** An HTML5 page for phones and desktops; `head` and `body` are HTML, escaped by the caller. */
export function htmlPage(head: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${head}
</head>
<body>
${body}
</body>
</html>
`;
}

/**
 * Serves the voice client and its worklet to any origin: a widget loads them from customers' pages,
 * and worklet modules are fetched in CORS mode. They hold nothing secret.
 */
export function assetRoutes() {
  const serve = (asset: () => ScriptAsset) => ({ request }: { request: Request }) => scriptResponse(asset(), request, { "access-control-allow-origin": "*" });
  return new Elysia({ name: "web-assets" })
    .get("/assets/voice-client.js", serve(voiceClientScript), { detail: { hide: true } })
    .get("/assets/voice-worklet.js", serve(voiceWorkletScript), { detail: { hide: true } });
}
