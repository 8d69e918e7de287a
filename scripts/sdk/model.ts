import { SURFACE } from "./surface.ts";

type Json = Record<string, any>;

/** One method of the client libraries, read off one operation of the OpenAPI document. */
export interface SdkOperation {
  operationId: string;
  resource: string;
  method: string;
  httpMethod: "GET" | "POST" | "PATCH" | "PUT" | "DELETE";
  /** `/v1/agents/{id}`: its path parameters, in order, come from the method's leading arguments. */
  path: string;
  pathParams: string[];
  query: { name: string; required: boolean; schema: Json; description?: string }[];
  /** Request body media types the operation takes; `json` first when it takes JSON at all. */
  body: { json: Json | null; multipart: Json | null; text: string | null; required: boolean };
  /** What a success answers: JSON (with its schema), text (CSV, HTML, JS), bytes (audio), nothing, or a WebSocket. */
  response: { kind: "json" | "text" | "binary" | "none" | "websocket"; status: number; schema: Json | null; contentType: string | null };
  /** JSON or text by a `format` query parameter (a transcript): the values that answer text, else none. */
  textFormats: string[];
  /** Lists with `limit`/`cursor` answering `{ data, has_more, next_cursor }`: iterable across pages. */
  paginated: boolean;
  /** The type of one item of a paginated list. */
  item: Json | null;
  summary: string;
  auth: string;
}

const TEXT_TYPES = /^(text\/|application\/(javascript|xml))/;

/** Every operation a client calls, in document order; carrier callbacks have no method. */
export function sdkOperations(doc: Json): SdkOperation[] {
  const out: SdkOperation[] = [];
  const seen = new Set<string>();
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [verb, op] of Object.entries(item as Json) as [string, Json][]) {
      if (op["x-required-scope"] === "carrier") continue;
      const name = SURFACE[op.operationId];
      if (!name) throw new Error(`${op.operationId} (${verb.toUpperCase()} ${path}) has no method: add it to scripts/sdk/surface.ts`);
      seen.add(op.operationId);
      const [resource, method] = name.split(".");
      const params = (op.parameters ?? []) as Json[];
      const content = (op.requestBody?.content ?? {}) as Json;
      const textType = Object.keys(content).find((type) => TEXT_TYPES.test(type)) ?? null;
      const query = params.filter((p) => p.in === "query").map((p) => ({ name: p.name, required: Boolean(p.required), schema: p.schema, ...(p.description ? { description: p.description } : {}) }));
      const response = successOf(op);
      const list = resolveRef(doc, response.schema);
      const paginated = query.some((q) => q.name === "cursor") && Boolean(list?.properties?.has_more);
      out.push({
        operationId: op.operationId,
        resource,
        method,
        httpMethod: verb.toUpperCase() as SdkOperation["httpMethod"],
        path,
        pathParams: params.filter((p) => p.in === "path").map((p) => p.name),
        query,
        body: {
          json: content["application/json"]?.schema ?? null,
          multipart: content["multipart/form-data"]?.schema ?? null,
          text: textType,
          required: Boolean(op.requestBody?.required),
        },
        response,
        textFormats: textFormatsOf(response, op, query),
        paginated,
        item: paginated ? (list!.properties.data.items as Json) : null,
        summary: op.summary ?? op.operationId,
        auth: op["x-required-scope"],
      });
    }
  }
  const stale = Object.keys(SURFACE).filter((id) => !seen.has(id));
  if (stale.length) throw new Error(`scripts/sdk/surface.ts names operations the document lacks: ${stale.join(", ")}`);
  return out;
}

function successOf(op: Json): SdkOperation["response"] {
  const entries = Object.entries(op.responses as Json);
  const [status, answer] = (entries.find(([s]) => /^2/.test(s)) ?? entries.find(([s]) => s === "101") ?? ["200", {}]) as [string, Json];
  if (status === "101") return { kind: "websocket", status: 101, schema: null, contentType: null };
  const types = Object.keys(answer.content ?? {});
  if (types.length === 0) return { kind: "none", status: Number(status), schema: null, contentType: null };
  if (types.includes("application/json")) return { kind: "json", status: Number(status), schema: answer.content["application/json"].schema ?? null, contentType: "application/json" };
  const type = types[0];
  return { kind: TEXT_TYPES.test(type) ? "text" : "binary", status: Number(status), schema: null, contentType: type };
}

/** The `format` values that make a JSON operation answer text instead, when its success also lists a text type. */
function textFormatsOf(response: SdkOperation["response"], op: Json, query: SdkOperation["query"]): string[] {
  const types = Object.keys(op.responses?.[String(response.status)]?.content ?? {});
  if (response.kind !== "json" || !types.some((type) => TEXT_TYPES.test(type))) return [];
  const format = query.find((q) => q.name === "format")?.schema;
  const values = (format?.enum ?? (format?.anyOf ?? format?.oneOf ?? []).map((s: Json) => s.const)) as unknown[];
  return values.filter((value): value is string => typeof value === "string" && value !== "json");
}

/** A schema, or what its `$ref` names. */
export function resolveRef(doc: Json, schema: Json | null): Json | null {
  const ref = schema?.$ref as string | undefined;
  return ref ? (doc.components.schemas[ref.slice(ref.lastIndexOf("/") + 1)] as Json) : schema;
}

/** The Python spelling of a camelCase name. */
export function snake(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z])([A-Z][a-z])/g, "$1_$2").toLowerCase();
}
