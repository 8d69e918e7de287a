import type { Config } from "../config/config.ts";

/**
 * An answer already written as JSON text (stored JSON put in as it is, not parsed and serialised again).
 * The test servers hold every answer to its documented schema, which needs the object: there the object
 * form goes out instead, once it has been shown to serialise to exactly the same text.
 */
export function jsonText<T>(config: Pick<Config, "checkResponses">, text: string, objectForm: () => T): Response | T {
  if (!config.checkResponses) return new Response(text, { headers: { "content-type": "application/json;charset=utf-8" } });
  const object = objectForm();
  const expected = JSON.stringify(object);
  if (text !== expected) throw new Error(`the JSON text of an answer differs from its object form:\n  text:   ${text}\n  object: ${expected}`);
  return object;
}
