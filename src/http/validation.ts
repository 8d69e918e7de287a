import { Value } from "@sinclair/typebox/value";
import type { TSchema } from "@sinclair/typebox";
import type { ValidationError } from "elysia";
import type { FieldError } from "./errors.ts";

interface ValueErrorLike {
  path: string;
  message: string;
  schema?: Record<string, unknown>;
  value?: unknown;
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
  return dedupe(all.flatMap(insideUnion).map((e) => toFieldError(e, error.type)));
}

/**
 * Field errors for `value` against `schema`, found by TypeBox directly. For the one case Elysia
 * cannot report: a value whose `toString` is not a function makes its ValidationError throw
 * ("No default value") while building the message.
 */
export function schemaErrors(schema: unknown, value: unknown, where: string): FieldError[] {
  if (!schema) return [{ field: where, message: "is not valid" }];
  const errors = dedupe([...Value.Errors(uncoerce(schema) as TSchema, value)].flatMap(insideUnion).map((e) => toFieldError(e, where)));
  return errors.length ? errors : [{ field: where, message: "is not valid" }];
}

/**
 * A value of the right kind for one branch of a union (`string | null`, `object | null`) fails the
 * union as a whole; what is wrong is inside that branch (`label` too long, `window.start`), so report
 * that branch's own errors.
 */
function insideUnion(error: ValueErrorLike): ValueErrorLike[] {
  if (error.message !== "Expected union value") return [error];
  const options = (error.schema?.anyOf as Record<string, unknown>[] | undefined) ?? [];
  const value = error.value;
  const branches = options.filter((option) => isOfType(value, (uncoerce(option) as Record<string, unknown>).type));
  // A literal branch ("auto" | null) is better said as the union's list of choices.
  if (branches.length !== 1 || branches[0].const !== undefined || branches[0].anyOf !== undefined) return [error];
  const nested = [...Value.Errors(branches[0] as unknown as TSchema, value)].map((e) => ({ ...e, path: error.path + e.path }) as ValueErrorLike);
  return nested.length ? nested.flatMap(insideUnion) : [error];
}

function isOfType(value: unknown, type: unknown): boolean {
  switch (type) {
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value);
    case "array":
      return Array.isArray(value);
    case "null":
      return value === null;
    case "integer":
      return typeof value === "number";
    case "string":
    case "number":
    case "boolean":
      return typeof value === type;
    default:
      return false;
  }
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
    return `must be ${[...new Set(options.map(describeOption))].join(" or ")}`;
  }
  // A pattern means little to a reader; the field's description says what is wanted ("Local time HH:MM").
  if (message.startsWith("Expected string to match") && typeof error.schema?.description === "string") return `must match: ${error.schema.description}`;
  return message.charAt(0).toLowerCase() + message.slice(1);
}

function describeOption(schema: Record<string, unknown>): string {
  const option = uncoerce(schema) as Record<string, unknown>;
  const literals = ((option.anyOf as Record<string, unknown>[] | undefined) ?? []).map((o) => o.const).filter((v) => v !== undefined);
  if (literals.length) return `one of: ${literals.join(", ")}`;
  if (option.const !== undefined) return JSON.stringify(option.const);
  if ((option.type === "integer" || option.type === "number") && option.minimum !== undefined && option.maximum !== undefined) return `${option.type} from ${option.minimum} to ${option.maximum}`;
  return option.format && option.type === "string" ? String(option.format) : String(option.type);
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
