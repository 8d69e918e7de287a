import { Elysia } from "elysia";
import { ApiError } from "./errors.ts";
import type { Admit } from "./auth.ts";
import type { RouteIndex } from "./route-index.ts";

/**
 * JSON bodies only (unless a route declares another type), at most `limitBytes`, read as a stream
 * so a lying or missing Content-Length cannot make us buffer more than the limit.
 */
export function bodyParser(routes: RouteIndex, limitBytes: number, admit: Admit) {
  return new Elysia({ name: "parley.body-parser" }).onParse({ as: "global" }, async ({ request, contentType, route }) => {
    if (!request.body) return undefined;
    // Who may call the route is settled before anything about its body (type, size, JSON) is said.
    const guard = routes.find(request.method, route)?.guard;
    if (guard) await admit(request, guard);
    const declared = request.headers.get("content-length");
    if (declared === "0") return undefined;
    const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
    const info = routes.find(request.method, route);
    // A route may hold JSON to less than the global limit (public forms); uploads declare more for their files only.
    const jsonLimit = Math.min(limitBytes, info?.maxBodyBytes ?? limitBytes);
    // A route that checks a signature over the exact bytes (Telnyx's Ed25519) reads the text itself.
    if (info?.rawBody && (type === "application/json" || type.endsWith("+json"))) return new RawBody(await readLimited(request, jsonLimit));
    if (type === "application/json" || type.endsWith("+json")) return parseJson(await readLimited(request, jsonLimit));
    const accepted = info?.bodyTypes ?? [];
    if (accepted.includes(type)) {
      // Elysia's own parser reads the declared type; refuse a declared length over the route's limit first.
      const limit = info?.maxBodyBytes ?? limitBytes;
      if (Number(declared) > limit) throw tooLarge(limit);
      if (info?.streamBody && type !== "multipart/form-data") return new StreamedBody(request.body, type);
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
  const declared = Number(request.headers.get("content-length"));
  if (declared > limitBytes) throw tooLarge(limitBytes);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limitBytes) {
      await reader.cancel();
      throw tooLarge(limitBytes);
    }
    chunks.push(value);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw new ApiError("malformed_json", "the body is not valid UTF-8");
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ApiError("malformed_json", `the body is not valid JSON: ${(error as Error).message}`);
  }
}

function tooLarge(limitBytes: number): ApiError {
  const size = limitBytes >= 1024 * 1024 ? `${Math.round(limitBytes / 1024 / 1024)} MiB` : `${Math.round(limitBytes / 1024)} KiB`;
  return new ApiError("payload_too_large", `the body exceeds the ${size} limit`);
}
