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

/**
 * An answer names at most this many fields: what a person fixes in one go. Errors are drawn lazily and
 * no more are looked for, so neither the answer nor its cost grows with the size of the invalid value
 * (a 1 MiB array of wrong types is as cheap to refuse as one wrong field).
 */
export const MAX_FIELD_ERRORS = 20;

/** A field's name is the client's own spelling: one longer than this is cut, so it cannot make the answer large. */
const MAX_FIELD_NAME = 200;

/** TypeBox errors → one entry per offending field, named the way the client spelled it. */
export function fieldErrors(error: ValidationError, querySchema: unknown, url: string): FieldError[] {
  if (error.type === "property" && querySchema) {
    // Elysia reports a query value that failed after coercion without its name; ask TypeBox again.
    const schema = uncoerce(querySchema) as TSchema;
    const raw = Object.fromEntries(new URL(url).searchParams);
    const converted = Value.Convert(schema, raw);
    return boundedFieldErrors(Value.Errors(schema, converted), "query");
  }
  const all = (error.all ?? []) as ValueErrorLike[];
  if (all.length === 0) return [{ field: error.type === "body" ? "body" : error.type, message: "is not valid" }];
  return boundedFieldErrors(all, error.type);
}

/**
 * Field errors for `value` against `schema`, found by TypeBox directly: for bodies checked before Elysia
 * sees them, and for a value whose `toString` is not a function (Elysia's ValidationError throws
 * "No default value" while building its message).
 */
export function schemaErrors(schema: unknown, value: unknown, where: string): FieldError[] {
  if (!schema || typeof schema !== "object") return [{ field: where, message: "is not valid" }];
  const { withoutUniqueness, whole } = reportingSchemas(schema);
  // Only a value whose one fault is a repeated item needs the items hashed (TypeBox hashes whole items, after every other check).
  let errors = boundedFieldErrors(Value.Errors(withoutUniqueness, value), where);
  if (!errors.length) errors = boundedFieldErrors(Value.Errors(whole, value), where);
  return errors.length ? errors : [{ field: where, message: "is not valid" }];
}

const reporting = new WeakMap<object, { withoutUniqueness: TSchema; whole: TSchema }>();

function reportingSchemas(schema: object): { withoutUniqueness: TSchema; whole: TSchema } {
  let found = reporting.get(schema);
  if (!found) {
    found = { withoutUniqueness: uncoerce(schema, true) as TSchema, whole: uncoerce(schema) as TSchema };
    reporting.set(schema, found);
  }
  return found;
}

/** The first MAX_FIELD_ERRORS distinct fields of a (lazy) stream of TypeBox errors. */
function boundedFieldErrors(errors: Iterable<ValueErrorLike>, where: string): FieldError[] {
  const out: FieldError[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    for (const inner of insideUnion(error)) {
      const field = toFieldError(inner, where);
      if (seen.has(field.field)) continue;
      seen.add(field.field);
      out.push(field);
      if (out.length === MAX_FIELD_ERRORS) return out;
    }
  }
  return out;
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
  const nested: ValueErrorLike[] = [];
  for (const inner of Value.Errors(branches[0] as unknown as TSchema, value)) {
    nested.push(...insideUnion({ ...inner, path: error.path + inner.path } as ValueErrorLike));
    if (nested.length >= MAX_FIELD_ERRORS) break;
  }
  return nested.length ? nested : [error];
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
  if (field.length > MAX_FIELD_NAME) field = `${field.slice(0, MAX_FIELD_NAME)}…`;
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

/**
 * Elysia widens query numbers/booleans to `anyOf [numeric string, number]`; undo it for reporting and docs.
 * `dropUniqueness` also leaves out `uniqueItems` (for reporting every other fault first).
 */
export function uncoerce(schema: unknown, dropUniqueness = false): unknown {
  if (Array.isArray(schema)) return schema.map((item) => uncoerce(item, dropUniqueness));
  if (!schema || typeof schema !== "object") return schema;
  const node = schema as Record<string, unknown>;
  const anyOf = node.anyOf as Record<string, unknown>[] | undefined;
  if (anyOf && anyOf.length === 2 && anyOf[0].type === "string" && ["numeric", "integer", "boolean"].includes(String(anyOf[0].format))) {
    return uncoerce(anyOf[1], dropUniqueness);
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node)) if (!(dropUniqueness && key === "uniqueItems")) out[key] = uncoerce(node[key], dropUniqueness);
  for (const symbol of Object.getOwnPropertySymbols(node)) (out as Record<symbol, unknown>)[symbol] = node[symbol as unknown as string];
  return out;
}
