import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import type { ValidationError } from "elysia";
import type { FieldError } from "./errors.ts";

interface ValueErrorLike {
  path: string;
  message: string;
  schema?: Record<string, unknown>;
}

/** TypeBox errors → one entry per offending field, named the way the client spelled it. */
export function fieldErrors(error: ValidationError, querySchema: unknown, url: string): FieldError[] {
  if (error.type === "property" && querySchema) {
    // Elysia reports a query value that failed after coercion without its name; ask TypeBox again.
    const schema = uncoerce(querySchema) as TSchema;
    const raw = Object.fromEntries(new URL(url).searchParams);
    const converted = Value.Convert(schema, raw);
    return dedupe([...Value.Errors(schema, converted)].map((e) => toFieldError(e, "query")));
  }
  const all = (error.all ?? []) as ValueErrorLike[];
  if (all.length === 0) return [{ field: error.type === "body" ? "body" : error.type, message: "is not valid" }];
  return dedupe(all.map((e) => toFieldError(e, error.type)));
}

function toFieldError(error: ValueErrorLike, where: string): FieldError {
  const segments = error.path.split("/").slice(1).map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  let field = segments.reduce((acc, seg) => (/^\d+$/.test(seg) ? `${acc}[${seg}]` : acc ? `${acc}.${seg}` : seg), "");
  if (!field) field = where === "body" ? "body" : where;
  return { field, message: describe(error) };
}

function describe(error: ValueErrorLike): string {
  const message = error.message;
  if (message === "Unexpected property") return "is not a known field";
  if (message === "Expected required property") return "is required";
  if (message === "Expected union value" && error.schema) {
    const options = (error.schema.anyOf as Record<string, unknown>[] | undefined) ?? [];
    const literals = options.map((o) => o.const).filter((v) => v !== undefined);
    if (literals.length === options.length && literals.length) return `must be one of: ${literals.join(", ")}`;
    const types = [...new Set(options.map((o) => (o.format && o.type === "string" ? String(o.format) : String(o.type))))];
    return `must be ${types.join(" or ")}`;
  }
  return message.charAt(0).toLowerCase() + message.slice(1);
}

function dedupe(errors: FieldError[]): FieldError[] {
  const seen = new Set<string>();
  return errors.filter((e) => (seen.has(e.field) ? false : (seen.add(e.field), true)));
}

/** Elysia widens query numbers/booleans to `anyOf [numeric string, number]`; undo it for reporting and docs. */
export function uncoerce(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(uncoerce);
  if (!schema || typeof schema !== "object") return schema;
  const node = schema as Record<string, unknown>;
  const anyOf = node.anyOf as Record<string, unknown>[] | undefined;
  if (anyOf && anyOf.length === 2 && anyOf[0].type === "string" && ["numeric", "integer", "boolean"].includes(String(anyOf[0].format))) {
    return uncoerce(anyOf[1]);
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node)) out[key] = uncoerce(node[key]);
  for (const symbol of Object.getOwnPropertySymbols(node)) (out as Record<symbol, unknown>)[symbol] = node[symbol as unknown as string];
  return out;
}
