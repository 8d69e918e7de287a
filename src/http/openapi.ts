import { Elysia } from "elysia";
import type { HttpContext } from "./context.ts";
import type { AppContext } from "../core/context.ts";
import { VERSION } from "../core/version.ts";
import { authPlugin } from "./auth.ts";
import { keySlugFor, linkBase, requestBrand } from "./host-brand.ts";
import { TAGS, type Tag } from "./docs.ts";
import { pascal, SchemaComponents, toJsonSchema } from "./openapi-components.ts";
import { errorResponses, IDEMPOTENCY_KEY, problemResponses, type ProblemName } from "./openapi-errors.ts";
import { Problem } from "./models.ts";
import { requiredScope, type RouteAuth } from "./permissions.ts";
import type { RouteIndex, RouteInfo } from "./route-index.ts";
import { AGENT_EVENT_TYPES, EVENT_DATA, TEST_EVENT_TYPE, WORKSPACE_EVENT_TYPES, agentEnvelope, workspaceEnvelope } from "../webhooks/event-types.ts";
import { brandSignatureHeader } from "../webhooks/signing.ts";

type Json = Record<string, unknown>;

const AUTH_DESCRIPTION: Record<RouteAuth, string> = {
  public: "No credentials; rate-limited per client IP.",
  read: "Any credential of the workspace: an API key of any scope, or a member's access token.",
  write: "API key scope `write` or `admin`, or a member with role member, admin or owner.",
  admin: "API key scope `admin`, or a member with role admin or owner.",
  user: "A signed-in user's access token (not an API key).",
  operator: "An `admin` credential of the instance operator's workspace.",
  carrier: "Called by the carrier itself, which proves it with its own signature (`X-Twilio-Signature`; Telnyx's Ed25519 headers) checked against the connection's credentials; no Parley credential.",
  token: "A single-use session token in the query (`?token=`) from POST /v1/realtime/token or a widget's voice-token; no API key reaches the browser. Rate-limited per client IP.",
};

/** A read served by another method than GET, which read-only keys may not use (`requiredScope`). */
const READ_NOT_GET = "API key scope `write` or `admin` (read-only keys make GET requests only), or a member of any role.";

/** Who the document speaks as: the instance, or the brand of the custom domain it was asked on. */
export interface DocumentBrand {
  name: string;
  publicUrl: string;
  keySlug: string;
}

/** OpenAPI 3.1, generated from the routes' own TypeBox schemas and guards, so it cannot drift from the code. */
export function buildOpenApi(ctx: AppContext, routes: RouteIndex, brand: DocumentBrand = { name: ctx.brand.name, publicUrl: ctx.publicUrl, keySlug: ctx.brand.slug }): Json {
  const paths: Record<string, Json> = {};
  const tags = new Set<string>();
  const components = new SchemaComponents();
  components.named(toJsonSchema(Problem)!, "Problem");
  const problems = new Set<ProblemName>();
  for (const route of routes.all()) {
    if (!route.path.startsWith("/v1/") || route.method === "HEAD" || (route.hooks.detail as Json | undefined)?.hide) continue;
    const operation = describeOperation(route, components, problems);
    for (const tag of (operation.tags as string[] | undefined) ?? []) tags.add(tag);
    const path = route.path.replace(/:(\w+)/g, "{$1}").replace(/(.)\/$/, "$1");
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation;
  }
  const webhooks = webhookDocs(ctx.brand.name, components);
  tags.add("Webhook events");
  return {
    openapi: "3.1.0",
    info: {
      title: `${brand.name} API`,
      version: VERSION,
      license: { name: "MIT", identifier: "MIT" },
      contact: { name: brand.name, url: brand.publicUrl },
      description:
        `REST API of ${brand.name}, a self-hosted platform for AI voice agents. Errors are RFC 9457 problem+json; lists use cursor pagination ` +
        "(`limit`, `cursor` → `has_more`, `next_cursor`); POST accepts `Idempotency-Key`. Every response carries `RateLimit-Limit`, " +
        "`RateLimit-Remaining` and `RateLimit-Reset`. `x-required-scope` on each operation names the credential it needs.",
    },
    servers: [{ url: brand.publicUrl }],
    tags: [...tags].sort().map((name) => ({ name, description: TAGS[name as Tag] })),
    paths,
    webhooks,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: `An API key (\`sk_${brand.keySlug}_live_…\`) or a user's access token from /v1/auth/login. Users may pick another of their workspaces with \`X-Workspace-Id\`.`,
        },
      },
      responses: problemResponses(problems),
      parameters: { IdempotencyKey: IDEMPOTENCY_KEY },
      schemas: Object.fromEntries(Object.entries(components.schemas).sort(([a], [b]) => a.localeCompare(b))),
    },
  };
}

function describeOperation(route: RouteInfo, components: SchemaComponents, problems: Set<ProblemName>): Json {
  const { "x-probe": _probe, "x-body-types": _types, "x-max-body-bytes": _limit, "x-body-stream": _stream, "x-body-raw": _raw, "x-response-types": _responseTypes, ...detail } = (route.hooks.detail as Json | undefined) ?? {};
  const auth = route.auth ?? "public";
  const scope = requiredScope(auth, route.method);
  const hasBody = Boolean(route.hooks.body);
  const parameters: Json[] = [];
  const pathNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]);
  const name = pascal(String(detail.operationId));
  const paramsSchema = toJsonSchema(route.hooks.params) as { properties?: Record<string, Json> } | undefined;
  for (const name of pathNames) {
    parameters.push({ name, in: "path", required: true, schema: paramsSchema?.properties?.[name] ?? { type: "string" } });
  }
  const query = toJsonSchema(route.hooks.query) as { properties?: Record<string, Json>; required?: string[] } | undefined;
  for (const [param, schema] of Object.entries(query?.properties ?? {})) {
    const { description, ...rest } = schema;
    parameters.push({ name: param, in: "query", required: query?.required?.includes(param) ?? false, ...(description ? { description } : {}), schema: components.refs(rest) });
  }
  if (route.method === "POST") parameters.push({ $ref: "#/components/parameters/IdempotencyKey" });
  const operation: Json = {
    ...detail,
    description: [detail.description, `**Auth:** ${scope === auth ? AUTH_DESCRIPTION[auth] : READ_NOT_GET}`].filter(Boolean).join("\n\n"),
    "x-required-scope": scope,
    security: auth === "public" || auth === "carrier" || auth === "token" ? [] : [{ bearerAuth: [] }],
    parameters,
    responses: { ...successResponses(route, components, name), ...errorResponses(route, auth, { body: hasBody || route.bodyTypes.length > 0, pathParams: pathNames.length > 0, query: Boolean(query) }, problems) },
  };
  if (hasBody) operation.requestBody = { required: true, content: requestContent(route, components, name) };
  else if (route.bodyTypes.length) operation.requestBody = { required: true, content: uploadContent(route, components, name) };
  return operation;
}

/** JSON variants under application/json; variants with a file part under multipart/form-data. */
function requestContent(route: RouteInfo, components: SchemaComponents, name: string): Json {
  const schema = toJsonSchema(route.hooks.body) as Json;
  const variants = (schema.anyOf as Json[] | undefined) ?? [schema];
  const hasFile = (variant: Json) => Object.values((variant.properties as Record<string, Json> | undefined) ?? {}).some((p) => p.format === "binary");
  const { default: _fileDefault, ...clean } = schema;
  const one = (list: Json[]) => (list.length === 1 ? list[0] : { ...clean, anyOf: list });
  const content: Json = {};
  const json = variants.filter((v) => !hasFile(v));
  if (json.length) content["application/json"] = { schema: components.named(one(json), `${name}Request`) };
  for (const type of route.bodyTypes) {
    const files = variants.filter(hasFile);
    content[type] = { schema: type === "multipart/form-data" && files.length ? components.named(one(files), `${name}Upload`) : { type: "string" } };
  }
  return content;
}

/** Routes that read their upload themselves (no JSON schema): a `file` part, or the raw body. */
function uploadContent(route: RouteInfo, components: SchemaComponents, name: string): Json {
  const content: Json = {};
  for (const type of route.bodyTypes) {
    content[type] = {
      schema:
        type === "multipart/form-data"
          ? components.named({ type: "object", properties: { file: { type: "string", format: "binary" } }, required: ["file"] }, `${name}Upload`)
          : type === "application/json"
            ? components.named({ type: "object", description: "Read as the exact bytes sent (a signature covers them)" }, `${name}Request`)
            : { type: "string" },
    };
  }
  return content;
}

function successResponses(route: RouteInfo, components: SchemaComponents, name: string): Json {
  if (route.websocket) return { "101": { description: "Switching Protocols: the connection is now the WebSocket described above" } };
  const declared = route.responses;
  // Files and CSV exports name their media types (`x-response-types`); everything else answers JSON.
  const types = ((route.hooks.detail as Json | undefined)?.["x-response-types"] as string[] | undefined) ?? ["application/json"];
  const out: Json = {};
  for (const [status, schema] of Object.entries(declared ?? {})) {
    if (!/^[1-5]\d\d$/.test(status)) continue;
    const json = toJsonSchema(schema) as Json | undefined;
    const description = (json?.description as string | undefined) ?? ({ "201": "Created", "202": "Accepted", "204": "No content" }[status] ?? "Success");
    const content = Object.fromEntries(types.map((type) => [type, { schema: type === "application/json" && json ? components.named(json, `${name}Response`) : { type: "string", format: "binary" } }]));
    out[status] = json?.type === "void" || status === "204" ? { description } : { description, content };
  }
  if (Object.keys(out).length === 0) out["200"] = { description: "Success" };
  return out;
}

export function openApiRoutes(ctx: HttpContext, routes: RouteIndex) {
  // One document per brand a Host picks (a handful), each built on first use.
  const cached = new Map<string, Json>();
  const document = (request: Request) => {
    const brand: DocumentBrand = { name: requestBrand(ctx, request).productName, publicUrl: linkBase(ctx, request), keySlug: keySlugFor(ctx, request) };
    const key = JSON.stringify(brand);
    let doc = cached.get(key);
    if (!doc) {
      if (cached.size >= 64) cached.clear();
      cached.set(key, (doc = buildOpenApi(ctx, routes, brand)));
    }
    return doc;
  };
  return new Elysia()
    .use(authPlugin(ctx))
    .get("/openapi.json", ({ request }) => document(request), { public: true, detail: { hide: true } })
    .get("/v1/openapi.json", ({ request }) => document(request), { public: true, detail: { hide: true } });
}

/** Every event Parley sends, with its envelope and `data`, as OpenAPI 3.1 webhooks. */
function webhookDocs(brandName: string, components: SchemaComponents): Json {
  const signature = brandSignatureHeader(brandName);
  const headers = [
    { name: signature, in: "header", required: true, schema: { type: "string" }, description: "`sha256=<hex HMAC-SHA256 of the raw body>` keyed with the secret string; during a rotation a comma-separated list (newest first)" },
    { name: "webhook-id", in: "header", required: true, schema: { type: "string" }, description: "The event id: stable across retries and replays" },
    { name: "webhook-timestamp", in: "header", required: true, schema: { type: "string" }, description: "Unix seconds of this attempt; reject old ones to stop replays" },
    { name: "webhook-signature", in: "header", required: true, schema: { type: "string" }, description: "Standard Webhooks: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`, space-separated during a rotation" },
  ];
  const out: Json = {};
  const describe = (type: string, channel: "agent" | "workspace") => {
    const envelope = channel === "agent" ? agentEnvelope(type, EVENT_DATA[type]) : workspaceEnvelope(type, EVENT_DATA[type]);
    out[type] = {
      post: {
        summary: channel === "agent" ? `${type} (call lifecycle, to the agent's webhook_url)` : `${type} (outcome, to subscribed workspace endpoints)`,
        operationId: `webhook_${type.replace(/\./g, "_")}`,
        tags: ["Webhook events"],
        // Receivers check the signatures above, not a credential of Parley's.
        security: [],
        parameters: headers,
        requestBody: { required: true, content: { "application/json": { schema: components.named(toJsonSchema(envelope)!, `${pascal(type)}Event`) } } },
        responses: {
          "200": { description: "Any 2xx acknowledges. 4xx (but 408/429) is final; 5xx, time-outs (10 s) and network errors retry at 1 min, 5 min, 30 min, 2 h, 6 h and 24 h." },
        },
      },
    };
  };
  for (const type of AGENT_EVENT_TYPES) describe(type, "agent");
  for (const type of WORKSPACE_EVENT_TYPES) describe(type, "workspace");
  describe(TEST_EVENT_TYPE, "workspace");
  return out;
}
