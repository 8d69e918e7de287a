import { Kind } from "@sinclair/typebox";
import type { Guard } from "./auth.ts";
import type { RouteAuth } from "./permissions.ts";

/** What the server knows about each registered route, for 405s, content types and the OpenAPI document. */
export interface RouteInfo {
  method: string;
  /** A GET that upgrades to a WebSocket (Elysia's `.ws`). */
  websocket: boolean;
  path: string;
  auth: RouteAuth | null;
  /** The guard the route's macro runs (a probe is documented as public). */
  guard: Guard | null;
  /** Non-JSON body types the route accepts (Elysia's `type` option or `x-body-types`), e.g. multipart uploads. */
  bodyTypes: string[];
  /** Largest body the route takes (`x-max-body-bytes`); JSON never exceeds the global limit, but may be held below it. */
  maxBodyBytes: number | null;
  /** The handler reads non-multipart bodies itself as a stream (`x-body-stream`), e.g. large CSV. */
  streamBody: boolean;
  /** The JSON body is handed over as its text (`x-body-raw`): the route verifies a signature over it. */
  rawBody: boolean;
  hooks: Record<string, unknown>;
  /** The documented response schema per status, as declared (the runtime may skip checking them). */
  responses: Record<string, unknown>;
  pattern: RegExp;
}

interface ElysiaRoute {
  method: string;
  path: string;
  hooks?: Record<string, unknown>;
}

const ELYSIA_TYPES: Record<string, string> = {
  formdata: "multipart/form-data",
  multipart: "multipart/form-data",
  "multipart/form-data": "multipart/form-data",
  text: "text/plain",
  "text/plain": "text/plain",
  urlencoded: "application/x-www-form-urlencoded",
  "application/x-www-form-urlencoded": "application/x-www-form-urlencoded",
  "text/csv": "text/csv",
  arrayBuffer: "application/octet-stream",
};

export class RouteIndex {
  private routes: RouteInfo[] = [];
  private byKey = new Map<string, RouteInfo>();

  /** Filled once the app has registered every module. */
  load(routes: ElysiaRoute[]): void {
    for (const route of routes) {
      closeObjects(route.hooks?.response);
      closeObjects(route.hooks?.body);
    }
    this.routes = routes
      .filter((route) => route.method !== "ALL")
      .map((route) => {
        // A WebSocket route is a GET that upgrades: documented, guarded and audited as one.
        const method = route.method === "WS" ? "GET" : route.method;
        const hooks = route.hooks ?? {};
        const detail = (hooks.detail ?? {}) as Record<string, unknown>;
        const type = hooks.type;
        const declared = (detail["x-body-types"] as string[] | undefined) ?? [];
        const types = [...((Array.isArray(type) ? type : type ? [type] : []) as string[]), ...declared];
        return {
          method,
          websocket: route.method === "WS",
          path: route.path,
          auth: (detail["x-required-scope"] as RouteAuth | undefined) ?? null,
          guard: detail["x-probe"] ? "probe" : detail["x-node"] ? "node" : ((detail["x-required-scope"] as RouteAuth | undefined) ?? null),
          bodyTypes: types.map((t) => ELYSIA_TYPES[t] ?? t),
          maxBodyBytes: (detail["x-max-body-bytes"] as number | undefined) ?? null,
          streamBody: detail["x-body-stream"] === true,
          rawBody: detail["x-body-raw"] === true,
          hooks,
          responses: { ...((hooks.response as Record<string, unknown> | undefined) ?? {}) },
          pattern: new RegExp(`^${route.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[^/]+/g, "[^/]+")}/?$`),
        };
      });
    this.byKey = new Map(this.routes.map((route) => [`${route.method} ${route.path}`, route]));
  }

  /**
   * Answers are built by our own code from typed rows, so checking each one against its schema at run
   * time (TypeBox Encode hashes every value of a union) only costs; the tests keep the check on, so
   * every response the suite sees is held to the documented schema. Must run before the first request.
   */
  skipResponseChecks(): void {
    for (const route of this.routes) {
      const response = route.hooks.response as Record<string, object> | undefined;
      if (!response || typeof response !== "object") continue;
      for (const [status, schema] of Object.entries(route.responses)) {
        if (schema && typeof schema === "object") response[status] = { ...schema, noValidate: true };
      }
    }
  }

  all(): RouteInfo[] {
    return this.routes;
  }

  find(method: string, path: string): RouteInfo | undefined {
    return this.byKey.get(`${method} ${path}`);
  }

  /** Whether a concrete URL path is a WebSocket route (reached without an upgrade, it matches nothing). */
  isWebSocket(urlPath: string): boolean {
    return this.routes.some((route) => route.websocket && route.pattern.test(urlPath));
  }

  /** Methods that exist for a concrete URL path (for 405 + Allow). */
  methodsFor(urlPath: string): string[] {
    const methods = new Set(this.routes.filter((route) => route.pattern.test(urlPath)).map((route) => route.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  }
}

/**
 * Elysia sets `additionalProperties: false` on an object body or response schema that does not say, in
 * place, the first time the route runs; done here at start instead, so that what the OpenAPI document
 * (and the client libraries generated from it) says does not depend on which routes have run yet.
 */
function closeObjects(schemaOrByStatus: unknown): void {
  if (!schemaOrByStatus || typeof schemaOrByStatus !== "object") return;
  const schemas = Kind in schemaOrByStatus ? [schemaOrByStatus] : Object.values(schemaOrByStatus);
  for (const schema of schemas as Record<string, unknown>[]) {
    if (schema && schema.type === "object" && !("additionalProperties" in schema)) schema.additionalProperties = false;
  }
}
