/**
 * Names for the schemas the OpenAPI document lists under `components.schemas`: each models file
 * names its resources and request bodies here, and the document refers to them by `$ref`. Validation
 * never reads this (it is documentation only), so naming a schema cannot change what a route accepts.
 */
const named = new Map<string, object>();

/** `rebuilt`: the schemas come from a factory run per app (its newest run wins); otherwise a name is taken once. */
export function nameSchemas(schemas: Record<string, object>, options: { rebuilt?: boolean } = {}): void {
  for (const [name, schema] of Object.entries(schemas)) {
    const known = named.get(name);
    if (known && known !== schema && !options.rebuilt) throw new Error(`two schemas are named ${name}`);
    named.set(name, schema);
  }
}

export function namedSchemas(): ReadonlyMap<string, object> {
  return named;
}
