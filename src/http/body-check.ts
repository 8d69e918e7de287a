import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import { ApiError } from "./errors.ts";
import type { RouteInfo } from "./route-index.ts";
import { schemaErrors } from "./validation.ts";

const checks = new WeakMap<object, TypeCheck<TSchema>>();

/**
 * Holds a parsed JSON body to its route's schema before Elysia does, and answers 422 with a bounded
 * list of fields. Elysia's own ValidationError pretty-prints the whole invalid value into its message
 * (quadratic in the nesting, linear in the size, for an answer that never shows it): a body that fails
 * here never reaches it. A body that passes passes Elysia's identical check (defaults only fill
 * optional fields), so it is checked twice, at a few microseconds.
 */
export function checkJsonBody(route: RouteInfo | undefined, body: unknown): void {
  const schema = route?.hooks.body;
  if (body === undefined || !schema || typeof schema !== "object") return;
  let check = checks.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema as TSchema);
    checks.set(schema, check);
  }
  if (check.Check(body)) return;
  const errors = schemaErrors(schema, body, "body");
  throw new ApiError("validation_failed", errors.map((e) => `${e.field}: ${e.message}`).join("; "), { errors });
}
