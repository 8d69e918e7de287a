// JSON Schema (as /openapi.json writes it) → fast-check arbitraries: values a client could send,
// valid by the schema, for fuzzing every operation.
import fc from "fast-check";

type Schema = Record<string, any>;

const MAX_DEPTH = 5;

export function arbitraryFor(schema: Schema | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > MAX_DEPTH) return fc.constant(null);
  if ("const" in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const options = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(options) && options.length) return fc.oneof(...options.map((option: Schema) => arbitraryFor(option, depth + 1)));
  if (Array.isArray(schema.allOf) && schema.allOf.length) return arbitraryFor(Object.assign({}, ...schema.allOf), depth);
  const type = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (type.length > 1) return fc.oneof(...type.map((t: string) => arbitraryFor({ ...schema, type: t }, depth)));
  switch (type[0]) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case "number":
      return fc.double({ min: schema.minimum ?? -1e6, max: schema.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
    case "string":
      return stringFor(schema);
    case "array":
      return fc.array(arbitraryFor(schema.items, depth + 1), { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 4, 4) });
    case "object":
    case undefined: {
      const properties: Record<string, Schema> = schema.properties ?? {};
      if (Object.keys(properties).length === 0) return schema.type === "object" ? fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }) : fc.jsonValue({ maxDepth: 2 });
      const shape = Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, arbitraryFor(property, depth + 1)]));
      return fc.record(shape, { requiredKeys: (schema.required ?? []).filter((key: string) => key in shape) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringFor(schema: Schema): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.min(schema.maxLength ?? 40, Math.max(minLength, 40));
  if (schema.format === "email") return fc.emailAddress();
  if (schema.format === "date-time") return fc.date({ min: new Date(2020, 0, 1), max: new Date(2035, 0, 1), noInvalidDate: true }).map((d) => d.toISOString());
  if (schema.format === "uri" || schema.format === "url") return fc.webUrl();
  if (typeof schema.pattern === "string") {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= minLength && s.length <= (schema.maxLength ?? Infinity));
    } catch {
      // a pattern fast-check cannot generate from: plain strings then
    }
  }
  return fc.string({ minLength, maxLength });
}

/** Anything at all in place of a valid value: wrong types, nulls, deep junk. */
export const junk: fc.Arbitrary<unknown> = fc.jsonValue({ maxDepth: 3 });

/** A valid body most of the time, otherwise junk or a valid body with one field broken. */
export function bodyArbitrary(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const valid = arbitraryFor(schema);
  const broken = fc.tuple(valid, fc.string({ maxLength: 12 }), junk).map(([value, key, bad]) => {
    if (!value || typeof value !== "object" || Array.isArray(value)) return bad;
    const keys = Object.keys(value);
    return { ...value, [keys.length ? keys[key.length % keys.length] : key]: bad };
  });
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: junk }, { weight: 2, arbitrary: broken });
}
