import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { dereference, samePath, SCOPE_DEPARTURES, servedOperations } from "../helpers/contract.ts";
import { createApp } from "../../src/app.ts";
import { buildOpenApi } from "../../src/http/openapi.ts";
import type { RouteInfo } from "../../src/http/route-index.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let raw: any;
/** The document with its `$ref`s resolved, for the tests that read schemas in place. */
let doc: any;
beforeAll(async () => {
  server = await startTestServer();
  raw = (await server.api.get("/openapi.json")).body;
  doc = dereference(raw);
});
afterAll(() => server.stop());

function operations(): { method: string; path: string; op: any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]: [string, any]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
}

describe("OpenAPI document", () => {
  test("is valid OpenAPI 3.1", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const result = await new Validator().validate(raw);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  test("is served at both addresses, identically", async () => {
    const v1 = await server.api.get("/v1/openapi.json");
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual(raw);
  });

  test("lists exactly the implemented operations of the contract, with the contract's auth", () => {
    const contract = servedOperations();
    const documented = operations();
    expect(documented).toHaveLength(contract.length);
    for (const c of contract) {
      const match = documented.find((d) => d.method === c.method && samePath(d.path, c.path));
      expect(match ? `${c.method} ${c.path}` : `missing ${c.method} ${c.path}`).toBe(`${c.method} ${c.path}`);
      expect(`${c.method} ${c.path}: ${match!.op["x-required-scope"]}`).toBe(`${c.method} ${c.path}: ${SCOPE_DEPARTURES.get(`${c.method} ${c.path}`) ?? c.auth}`);
    }
  });

  test("every operation has an id, summary, tag, security, schemas and error responses", () => {
    const ids = new Set<string>();
    for (const { method, path, op } of operations()) {
      const where = `${method} ${path}`;
      expect(typeof op.operationId, where).toBe("string");
      expect(ids.has(op.operationId), where).toBe(false);
      ids.add(op.operationId);
      expect(op.summary?.length, where).toBeGreaterThan(3);
      expect(op.tags?.length, where).toBe(1);
      expect(Array.isArray(op.security), where).toBe(true);
      const statuses = Object.keys(op.responses);
      // A WebSocket operation answers 101 and then speaks its own protocol.
      expect(statuses.some((s) => s.startsWith("2") || s === "101"), where).toBe(true);
      expect(statuses, where).toContain("429");
      if (op["x-required-scope"] === "carrier") expect(statuses, where).toContain("403");
      else if (op["x-required-scope"] !== "public") expect(statuses, where).toEqual(expect.arrayContaining(["401", "403"]));
      for (const [status, response] of Object.entries<any>(op.responses)) {
        // JSON, or the media type a file or CSV answer names (as a binary string).
        if (status.startsWith("2") && status !== "204") {
          const [type, media] = Object.entries<any>(response.content ?? {})[0] ?? [];
          expect(media?.schema, `${where} ${status}`).toBeDefined();
          if (type !== "application/json") expect(media.schema, `${where} ${status}`).toEqual({ type: "string", format: "binary" });
        }
        if (/^4/.test(status)) expect(response.content["application/problem+json"].schema).toEqual(doc.components.schemas.Problem);
      }
      // JSON bodies are objects; an upload-only operation (a CSV file) documents its media types instead.
      if (["POST", "PATCH", "PUT"].includes(method) && op.requestBody?.content["application/json"]) {
        const json = op.requestBody.content["application/json"].schema;
        const variants = json.anyOf ?? [json];
        for (const variant of variants) expect(variant.type, where).toBe("object");
      }
      for (const param of op.parameters) expect(param.schema, `${where} ${param.name}`).toBeDefined();
    }
  });

  test("uploads are documented as multipart with a binary file part", () => {
    const content = doc.paths["/v1/knowledge-base/{id}/sources"].post.requestBody.content;
    expect(content["multipart/form-data"].schema.properties.file).toMatchObject({ type: "string", format: "binary" });
    expect(content["application/json"].schema.anyOf.map((v: any) => v.properties.type.const)).toEqual(["text", "url"]);
    const csv = doc.paths["/v1/campaigns/{id}/upload"].post.requestBody.content;
    expect(Object.keys(csv).sort()).toEqual(["multipart/form-data", "text/csv"]);
    expect(csv["multipart/form-data"].schema.properties.file).toMatchObject({ type: "string", format: "binary" });
  });

  test("files and CSV answers name their media types", () => {
    expect(Object.keys(doc.paths["/v1/campaigns/{id}/results"].get.responses["200"].content)).toEqual(["text/csv"]);
    expect(Object.keys(doc.paths["/v1/calls/export"].get.responses["200"].content)).toEqual(["text/csv"]);
    expect(Object.keys(doc.paths["/v1/calls/{id}/recording"].get.responses["200"].content)).toEqual(["audio/wav", "audio/mpeg"]);
  });

  test("query parameters are documented with their real types, not Elysia's coercion", () => {
    const list = doc.paths["/v1/api-keys"].get;
    const limit = list.parameters.find((p: any) => p.name === "limit");
    expect(limit.schema).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
  });
});

describe("OpenAPI webhooks section", () => {
  test("publishes every event of both sets with its envelope and data schema", () => {
    const setA = ["call.started", "call.transcript", "call.ended", "call.error", "call.transfer"];
    const setB = ["call.completed", "call.transferred", "call.failed", "campaign.completed", "payment.succeeded", "test_run.completed"];
    expect(Object.keys(doc.webhooks).sort()).toEqual([...setA, ...setB, "webhook.test"].sort());
    for (const type of setA) {
      const schema = doc.webhooks[type].post.requestBody.content["application/json"].schema;
      expect(schema.required).toEqual(["type", "event_id", "call_id", "agent_id", "timestamp", "data"]);
      expect(schema.properties.type.const).toBe(type);
    }
    for (const type of setB) {
      const schema = doc.webhooks[type].post.requestBody.content["application/json"].schema;
      expect(schema.required).toEqual(["event", "id", "ts", "data"]);
      expect(schema.properties.data.type).toBe("object");
    }
    const headers = doc.webhooks["call.completed"].post.parameters.map((p: any) => p.name);
    expect(headers).toEqual(["X-Parley-Signature", "webhook-id", "webhook-timestamp", "webhook-signature"]);
  });

  test("call.completed: data.transcript is the specification's string, the structured turns are transcript_turns", () => {
    for (const type of ["call.completed", "call.transferred", "call.failed"]) {
      const data = doc.webhooks[type].post.requestBody.content["application/json"].schema.properties.data;
      const properties = data.properties ?? data.allOf?.reduce((all: any, part: any) => ({ ...all, ...part.properties }), {});
      expect(properties.transcript.type).toBe("string");
      expect(properties.transcript_turns.type).toBe("array");
      expect(properties.transcript_turns.items.properties.role).toBeDefined();
    }
  });
});

describe("response schemas", () => {
  test("the suite's servers check every response against its schema; production skips the check but documents the same", () => {
    const { routes: checked } = createApp(server.ctx, server.ctx.services);
    server.ctx.config.checkResponses = false;
    const { routes } = createApp(server.ctx, server.ctx.services);
    server.ctx.config.checkResponses = true;
    const withSchemas = routes.all().filter((route) => Object.keys(route.responses).length > 0);
    expect(withSchemas.length).toBeGreaterThan(100);
    const noValidate = (route: RouteInfo | undefined, status: string) => (route!.hooks.response as Record<string, { noValidate?: boolean }>)[status].noValidate;
    for (const route of withSchemas) {
      for (const status of Object.keys(route.responses)) {
        expect(noValidate(route, status)).toBe(true);
        expect(noValidate(checked.find(route.method, route.path), status)).toBeUndefined();
      }
    }
    expect(buildOpenApi(server.ctx, routes)).toEqual(buildOpenApi(server.ctx, checked));
  });
});

describe("a stable document", () => {
  test("is the same whichever routes have run before it was built (the client libraries are generated from it)", async () => {
    const other = await startTestServer();
    try {
      // Routes answering with schemas they share with others: Elysia closes those objects on first use.
      const user = (await other.api.post("/v1/auth/register", { email: "stable@example.com", password: "a long password" })).body;
      const agent = (await other.api.post("/v1/agents", { name: "Stable" }, { token: user.access_token })).body;
      for (const path of ["/v1/agents", `/v1/agents/${agent.id}`, "/v1/auth/me", "/v1/workspaces/current", "/v1/workspaces", "/v1/calls", "/v1/telephony/carriers"]) await other.api.get(path, { token: user.access_token });
      const later = await startTestServer();
      try {
        const strip = (d: any) => ({ ...d, servers: null, info: { ...d.info, contact: null } });
        expect(strip((await later.api.get("/openapi.json")).body)).toEqual(strip(raw));
      } finally {
        await later.stop();
      }
    } finally {
      await other.stop();
    }
  });
});
