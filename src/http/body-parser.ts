import { Elysia } from "elysia";
import { parseQuery } from "elysia/parse-query";
import { jsonNestingExceeds } from "../lib/json-depth.ts";
import { checkJsonBody } from "./body-check.ts";
import { ApiError, payloadTooLarge } from "./errors.ts";
import type { Admit } from "./auth.ts";
import { findRequestMeta } from "./request-meta.ts";
import type { RouteIndex } from "./route-index.ts";

/**
 * JSON may nest arrays and objects this deep, no deeper (the deepest body Parley itself takes, a tool's
 * JSON Schema, needs a handful). Deeper is refused before it is parsed or validated.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * Every body is read by us, as a stream, to its route's limit: JSON (1 MiB unless a route holds it lower),
 * uploads (their declared limit), forms. A lying or missing Content-Length cannot make us buffer more, and
 * every limit answers problem+json (Bun's own cap, which answers an empty 413, is off: see server.ts).
 */
export function bodyParser(routes: RouteIndex, limitBytes: number, admit: Admit) {
  return new Elysia({ name: "parley.body-parser" }).onParse({ as: "global" }, async ({ request, contentType, route }) => {
    if (!request.body) return undefined;
    const info = routes.find(request.method, route);
    // Who may call the route is settled before anything about its body (type, size, JSON) is said.
    if (info?.guard) await admit(request, info.guard);
    const declared = request.headers.get("content-length");
    if (declared === "0") return undefined;
    const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
    if (type === "application/json" || type.endsWith("+json")) {
      // A route may hold JSON to less than the global limit (public forms); uploads declare more for their files only.
      const text = await readLimited(request, Math.min(limitBytes, info?.maxBodyBytes ?? limitBytes));
      refuseDeepNesting(text);
      // A route that checks a signature over the exact bytes (Telnyx's Ed25519) reads the text itself.
      if (info?.rawBody) return new RawBody(text);
      const value = parseJson(text);
      checkJsonBody(info, value);
      return value;
    }
    const accepted = info?.bodyTypes ?? [];
    if (accepted.includes(type)) {
      const limit = info?.maxBodyBytes ?? limitBytes;
      if (Number(declared) > limit) throw payloadTooLarge(limit);
      if (type === "multipart/form-data") return readForm(request, limit);
      if (type === "application/x-www-form-urlencoded") return parseQuery(await readLimited(request, limit));
      if (info?.streamBody) return new StreamedBody(request.body, type);
      return undefined;
    }
    const text = await readLimited(request, limitBytes);
    if (text.length === 0) return undefined;
    const expected = ["application/json", ...accepted].join(", ");
    throw new ApiError("unsupported_media_type", `Content-Type ${type || "(none)"} is not accepted here; send ${expected}`);
  });
}

/** A JSON body kept as the text that was sent (its signature covers the bytes, not the parsed value). */
export class RawBody {
  constructor(readonly text: string) {}
}

/** A body left unread for the handler to consume as it arrives (the handler enforces its own limit). */
export class StreamedBody {
  constructor(
    readonly stream: ReadableStream<Uint8Array>,
    readonly type: string,
  ) {}
}

export async function readLimited(request: Request, limitBytes: number): Promise<string> {
  const bytes = await readLimitedBytes(request, limitBytes);
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ApiError("malformed_json", "the body is not valid UTF-8");
  }
}

/** The whole body, refused with 413 as soon as it declares or sends more than `limitBytes`. */
async function readLimitedBytes(request: Request, limitBytes: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > limitBytes) throw payloadTooLarge(limitBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      // The rest is drained as the answer goes out (lingering.ts), so the lock is given back, not the stream cancelled.
      reader.releaseLock();
      throw payloadTooLarge(limitBytes);
    }
    chunks.push(value);
  }
  const meta = findRequestMeta(request);
  if (meta) meta.bodyRead = true;
  return Buffer.concat(chunks);
}

/**
 * A multipart form read to the route's limit, then split into its fields: one value, or an array of the
 * values of a repeated field (Elysia's own shape, without its habit of parsing fields that look like JSON).
 */
async function readForm(request: Request, limitBytes: number): Promise<Record<string, unknown>> {
  const bytes = await readLimitedBytes(request, limitBytes);
  let form: Awaited<ReturnType<Response["formData"]>>;
  try {
    form = await new Response(bytes, { headers: { "content-type": request.headers.get("content-type") ?? "" } }).formData();
  } catch {
    throw new ApiError("bad_request", "the body is not valid multipart/form-data");
  }
  const body: Record<string, unknown> = {};
  for (const key of new Set(form.keys())) {
    if (key === "__proto__" || key === "constructor" || key === "prototype") continue;
    const values = form.getAll(key);
    body[key] = values.length === 1 ? values[0] : values;
  }
  return body;
}

function refuseDeepNesting(text: string): void {
  if (!jsonNestingExceeds(text, MAX_JSON_DEPTH)) return;
  throw new ApiError("nesting_too_deep", `the body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep, the most this API takes`, { members: { max_depth: MAX_JSON_DEPTH } });
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError("malformed_json", `the body is not valid JSON: ${(error as Error).message}`);
  }
}
