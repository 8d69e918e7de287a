import { t } from "elysia";
import type { TLiteral, TSchema, TUnion } from "@sinclair/typebox";
import { ERROR_CODES } from "./errors.ts";
import { nameSchemas } from "../lib/schema-names.ts";

/** Shapes shared by every module's routes. */
export const Timestamp = t.String({ format: "date-time", description: "ISO 8601, UTC" });
export const NullableTimestamp = t.Union([Timestamp, t.Null()]);

export const IdParam = t.Object({ id: t.String({ minLength: 1, maxLength: 64 }) });

export const Problem = t.Object(
  {
    type: t.String(),
    title: t.String(),
    status: t.Integer(),
    detail: t.String(),
    code: t.Union(Object.keys(ERROR_CODES).map((code) => t.Literal(code))),
    request_id: t.String(),
    errors: t.Optional(t.Array(t.Object({ field: t.String(), message: t.String() }), { description: "The offending fields, at most 20" })),
    limit_bytes: t.Optional(t.Integer({ description: "`payload_too_large`: the size limit that applied, in bytes" })),
    max_depth: t.Optional(t.Integer({ description: "`nesting_too_deep`: how deep JSON may nest arrays and objects" })),
  },
  { description: "RFC 9457 problem details" },
);

export const Email = t.String({ format: "email", maxLength: 254, description: "E-mail address" });

/** Empty bodies for 202/204-style answers that still return JSON. */
export const Accepted = t.Object({ status: t.Literal("accepted") });

/** Declares a 204 answer in the route's responses (the handler returns `noContent()`). */
export const NoContent = t.Void({ description: "No content" });

export function noContent(): Response {
  return new Response(null, { status: 204 });
}

/** A union of string literals, typed as the union of the values (TypeBox loses it through `map`). */
export function OneOf<const T extends readonly [string, ...string[]]>(values: T, options?: { description?: string; default?: T[number] }) {
  type Literals = { [K in keyof T]: TLiteral<T[K]> };
  return t.Union(values.map((value) => t.Literal(value)), options) as unknown as TUnion<Literals extends readonly TSchema[] ? [...Literals] : never>;
}

nameSchemas({ Problem });
