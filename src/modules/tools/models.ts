import { t, type Static } from "elysia";
import { Timestamp } from "../../http/models.ts";
import { toIso } from "../../lib/time.ts";
import type { ToolRow } from "./repo.ts";
import { nameSchemas } from "../../lib/schema-names.ts";

const JsonSchemaObject = t.Object(
  { type: t.Literal("object"), properties: t.Optional(t.Record(t.String(), t.Unknown())), required: t.Optional(t.Array(t.String())) },
  { additionalProperties: true, description: "JSON Schema of the arguments (an object schema), as in OpenAI function calling" },
);

export const toolFields = {
  name: t.String({ pattern: "^[a-zA-Z][a-zA-Z0-9_-]{0,63}$", description: "Function name the model sees; unique in the workspace" }),
  description: t.String({ minLength: 1, maxLength: 1000, description: "When to call it, for the model" }),
  parameters: JsonSchemaObject,
  url: t.String({ minLength: 1, maxLength: 2048, description: "Receives a signed POST per call (https; same URL rules as webhooks)" }),
  timeout_ms: t.Integer({ minimum: 100, maximum: 30000, description: "Give up after this long (default 5000)" }),
  response_path: t.Union([t.String({ maxLength: 200 }), t.Null()], { description: "Dotted path into the JSON response whose value is the result (e.g. `data.status`); default the whole body" }),
  messages: t.Object(
    {
      request_start: t.Optional(t.String({ maxLength: 500, description: "Said while the tool runs, e.g. 'One moment…'" })),
      request_failed: t.Optional(t.String({ maxLength: 500, description: "Said when it fails" })),
    },
    { additionalProperties: false },
  ),
};

export const Tool = t.Object({
  id: t.String({ description: "`tool_…`" }),
  object: t.Literal("tool"),
  ...toolFields,
  header_names: t.Array(t.String(), { description: "Extra headers sent with each call (values are secret and never shown)" }),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const ToolWithSecret = t.Composite([Tool, t.Object({ secret: t.String({ description: "Signs each call like webhooks do (`whsec_…`), shown once" }) })]);

const Headers = t.Record(t.String({ pattern: "^[A-Za-z0-9-]{1,100}$" }), t.String({ maxLength: 4000 }), { description: "Extra request headers (e.g. an API key of yours)", additionalProperties: false });

const { name, description, url, ...optional } = toolFields;
export const ToolCreate = t.Composite([t.Object({ name, description, url }), t.Partial(t.Object({ ...optional, headers: Headers }))], { additionalProperties: false });
export const ToolUpdate = t.Partial(t.Object({ ...toolFields, headers: Headers }), { additionalProperties: false });

export type ToolConfig = { [K in keyof typeof toolFields]: Static<(typeof toolFields)[K]> };

export interface ToolInvocation {
  call_id: string;
  request: { url: string; method: "POST"; headers: Record<string, string>; body: unknown };
  response: { status: number; body: unknown } | null;
  /** What the brain receives: the mapped value, or an error the model can explain to the caller. */
  result: unknown;
  error: string | null;
  latency_ms: number;
}

export function toolConfigOf(row: ToolRow): ToolConfig {
  return { ...(row.config as Omit<ToolConfig, "name">), name: row.name } as ToolConfig;
}

export function toolJson(row: ToolRow, headerNames: string[]) {
  return { id: row.id, object: "tool" as const, ...toolConfigOf(row), header_names: headerNames, created_at: toIso(row.createdAt), updated_at: toIso(row.updatedAt) };
}

nameSchemas({ Tool, ToolWithSecret, ToolCreate, ToolUpdate });
