import { namedSchemas } from "../lib/schema-names.ts";
import { uncoerce } from "./validation.ts";

type Json = Record<string, unknown>;

/** Values that are data, not schemas: never replaced by a reference even if they look like one. */
const DATA_KEYS = new Set(["const", "default", "enum", "examples", "example"]);
const LIST_KEYS = ["data", "has_more", "next_cursor"];

/** TypeBox schemas are JSON Schema already; strip TypeBox's symbols and Elysia's query coercions. */
export function toJsonSchema(schema: unknown): Json | undefined {
  if (!schema) return undefined;
  return JSON.parse(JSON.stringify(uncoerce(schema))) as Json;
}

/**
 * `components.schemas` of the document. Schemas are matched by shape, not identity, so a named
 * schema is found wherever the routes use it (TypeBox copies a schema to make it optional); lists of a
 * named item become `<Item>List`; bodies and answers without a name get one from their operation.
 */
export class SchemaComponents {
  readonly schemas: Record<string, Json> = {};
  private byShape = new Map<string, string>();

  constructor(named: ReadonlyMap<string, object> = namedSchemas()) {
    for (const [name, schema] of named) {
      const key = shapeKey(toJsonSchema(schema));
      if (!this.byShape.has(key)) this.byShape.set(key, name);
    }
  }

  /** The schema with every named part referenced. */
  refs(schema: Json): Json {
    return this.visit(schema, false) as Json;
  }

  /** A body or an answer: referenced by its own name, or by `fallback` when it is an object nobody named. */
  named(schema: Json, fallback: string): Json {
    const out = this.refs(schema);
    if (out.$ref || !(out.type === "object" || out.anyOf || out.oneOf || out.allOf)) return out;
    let name = fallback;
    for (let n = 2; this.schemas[name] && JSON.stringify(this.schemas[name]) !== JSON.stringify(out); n++) name = `${fallback}${n}`;
    this.schemas[name] = out;
    return ref(name);
  }

  private visit(node: unknown, isRoot: boolean): unknown {
    if (Array.isArray(node)) return node.map((item) => this.visit(item, false));
    if (!node || typeof node !== "object") return node;
    if (!isRoot) {
      const name = this.byShape.get(shapeKey(node));
      if (name) return this.define(name, node as Json);
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(node)) out[key] = DATA_KEYS.has(key) ? value : this.visit(value, false);
    return this.asList(out) ?? out;
  }

  private define(name: string, schema: Json): Json {
    if (!this.schemas[name]) {
      this.schemas[name] = {}; // a schema that contains itself refers to the name being defined
      this.schemas[name] = this.visit(schema, true) as Json;
    }
    return ref(name);
  }

  /** `{ data: Item[], has_more, next_cursor }` → `ItemList` (its per-route description stays on the response). */
  private asList(schema: Json): Json | null {
    const properties = schema.properties as Record<string, Json> | undefined;
    const items = (properties?.data?.items as Json | undefined)?.$ref as string | undefined;
    if (schema.type !== "object" || !items || Object.keys(properties!).join() !== LIST_KEYS.join()) return null;
    const name = `${items.slice(items.lastIndexOf("/") + 1)}List`;
    const { description: _description, ...list } = schema;
    this.schemas[name] ??= list;
    return ref(name);
  }
}

/**
 * A schema's identity for matching: its JSON without `additionalProperties`, which Elysia adds in place
 * to a schema a route answers with directly while the copies TypeBox made of it elsewhere keep none.
 */
function shapeKey(schema: unknown): string {
  return JSON.stringify(schema, (key, value) => (key === "additionalProperties" && typeof value === "boolean" ? undefined : value));
}

function ref(name: string): Json {
  return { $ref: `#/components/schemas/${name}` };
}

/** `createAgent` → `CreateAgent`; `call.ended` → `CallEnded`. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0].toUpperCase() + part.slice(1))
    .join("");
}
