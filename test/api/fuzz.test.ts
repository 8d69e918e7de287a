// Every operation of /openapi.json, fuzzed from its own request schemas: valid-looking, broken and
// junk bodies, query strings and path ids (real objects of the workspace and made-up ones). No answer
// may be a 5xx, every 4xx must be problem+json, and the server must stay healthy.
// PARLEY_FUZZ_SEED and PARLEY_FUZZ_RUNS (per operation) reproduce or widen a run.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { dereference, servedOperations } from "../helpers/contract.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { arbitraryFor, bodyArbitrary, junk } from "../helpers/schema-arbitrary.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const SEED = Number(process.env.PARLEY_FUZZ_SEED ?? 20261124);
const RUNS = Number(process.env.PARLEY_FUZZ_RUNS ?? 20);

interface Operation {
  method: string;
  path: string;
  op: Record<string, any>;
}

let server: TestServer;
let doc: any;
let userToken: string;
let key: string;
/** Real ids of this workspace, by path parameter and resource family. */
const ids: Record<string, string[]> = {};
const remember = (family: string, id: string | undefined) => id && (ids[family] ??= []).push(id);

beforeAll(async () => {
  server = await startTestServer();
  doc = dereference((await server.api.get("/openapi.json")).body);
  const user = await registerUser(server.api, "fuzz");
  userToken = user.token;
  key = (await createKey(server.api, user.token, "admin")).secret;
  const as = { token: key };
  const tool = await server.api.post("/v1/tools", { name: "fuzz_tool", description: "A tool", url: "https://tools.example.com/t" }, as);
  const agent = await server.api.post("/v1/agents", { name: "Fuzzed", tools: [{ type: "function", tool_id: tool.body.id }] }, as);
  const kb = await server.api.post("/v1/knowledge-base", { name: "Fuzz notes" }, as);
  const source = await server.api.post(`/v1/knowledge-base/${kb.body.id}/sources`, { type: "text", name: "Notes", text: "We open at nine." }, as);
  const number = await server.api.post("/v1/phone-numbers/buy", { area_code: "303" }, as);
  await server.api.post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: agent.body.id }, as);
  const call = await server.api.post("/v1/calls/outbound", { agent_id: agent.body.id, to: "+13035550101" }, as); // busy: ends at once
  const campaign = await server.api.post("/v1/campaigns", { name: "Fuzz campaign", agent_id: agent.body.id }, as);
  const endpoint = await server.api.post("/v1/webhooks", { url: "https://hooks.example.com/fuzz", events: ["call.completed"] }, as);
  const provider = await server.api.post("/v1/providers", { name: "Model", kind: "openai-compatible", base_url: "https://models.example.com/v1" }, as);
  const schedule = await server.api.post("/v1/schedules", { agent_id: agent.body.id, to: "+13035550150", at: new Date(Date.now() + 86_400_000).toISOString() }, as);
  const spare = await createKey(server.api, user.token, "read-only", "spare");
  const widget = await server.api.post("/v1/widgets", { agent_id: agent.body.id, name: "Fuzz widget", allowed_origins: ["https://shop.example.com"] }, as);
  for (const [family, id] of [
    ["agents", agent.body.id], ["tools", tool.body.id], ["knowledge-base", kb.body.id], ["phone-numbers", number.body.id], ["calls", call.body.id],
    ["campaigns", campaign.body.id], ["webhooks", endpoint.body.id], ["providers", provider.body.id], ["schedules", schedule.body.id], ["api-keys", spare.id], ["widgets", widget.body.id],
  ] as const) remember(family, id);
  remember("src", source.body.id);
  remember("version", "1");
});
afterAll(() => server.stop());

function operations(): Operation[] {
  const all = Object.entries(doc.paths).flatMap(([path, item]: [string, any]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op: op as Record<string, any> })));
  // Operations that end the credentials the rest use go last (they are fuzzed too).
  const last = (o: Operation) => /logout|password|sessions\/\{id\}|api-keys\/\{id\}$|members\/\{id\}$/.test(o.path) && o.method !== "GET";
  return [...all.filter((o) => !last(o)), ...all.filter(last)];
}

/** A path with each `{param}` filled: a real id of the resource family, a made-up id, or junk. */
function pathArbitrary(path: string): fc.Arbitrary<string> {
  const family = /^\/v1\/([^/]+)/.exec(path)?.[1] ?? "";
  const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const valueFor = (param: string) => {
    const real = ids[param === "id" ? family : param] ?? [];
    const choices: fc.Arbitrary<string>[] = [fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom("x_doesnotexist", "agent_AAAAAAAAAAAAAAAAAAAA", "%00", "..", "0")];
    if (real.length) choices.push(fc.constantFrom(...real), fc.constantFrom(...real));
    return fc.oneof(...choices).map((value) => encodeURIComponent(value));
  };
  return fc.tuple(...params.map(valueFor)).map((values) => {
    let i = 0;
    return path.replace(/\{\w+\}/g, () => values[i++]);
  });
}

/** A query string from the operation's parameters: each present or not, valid or junk. */
function queryArbitrary(op: Record<string, any>): fc.Arbitrary<string> {
  const params = ((op.parameters ?? []) as any[]).filter((p) => p.in === "query");
  if (params.length === 0) return fc.constant("");
  return fc
    .tuple(...params.map((p) => fc.option(fc.oneof({ weight: 3, arbitrary: arbitraryFor(p.schema) }, { weight: 1, arbitrary: junk }), { nil: undefined })))
    .map((values) => {
      const search = new URLSearchParams();
      values.forEach((value, i) => value !== undefined && search.set(params[i].name, typeof value === "string" ? value : JSON.stringify(value)));
      const text = search.toString();
      return text ? `?${text}` : "";
    });
}

function tokenFor(op: Record<string, any>): string {
  return op["x-required-scope"] === "user" ? userToken : key;
}

const failures: string[] = [];
let requests = 0;

describe("fuzzing every operation of /openapi.json", () => {
  test("no 5xx, every 4xx is problem+json, and the server stays healthy", async () => {
    const started = performance.now();
    const ops = operations();
    expect(ops.length).toBe(servedOperations().length); // every operation the document lists
    console.log(`fuzz: seed ${SEED}, ${RUNS} requests per operation, ${ops.length} operations`);
    for (const [index, { method, path, op }] of ops.entries()) {
      if (op["x-websocket"] || /softphone|realtime\/session/.test(path)) continue;
      const json = op.requestBody?.content?.["application/json"]?.schema;
      const otherType = op.requestBody && !json ? Object.keys(op.requestBody.content)[0] : null;
      const cases = fc.sample(fc.tuple(pathArbitrary(path), queryArbitrary(op), json ? bodyArbitrary(json) : fc.constant(undefined), fc.string({ maxLength: 200 })), { seed: SEED + index, numRuns: RUNS });
      for (const [url, query, body, text] of cases) {
        const raw = otherType ? text : undefined;
        const res = await server.api.request(method, url + query, body, { token: tokenFor(op), raw, contentType: otherType ?? undefined });
        requests++;
        const where = `${method} ${url}${query} ${JSON.stringify(body ?? raw ?? null).slice(0, 300)}`;
        if (res.status >= 500) failures.push(`${res.status} ${where}: ${res.text.slice(0, 300)}`);
        else if (res.status >= 400) {
          const type = res.headers.get("content-type") ?? "";
          const problem = res.body as Record<string, unknown> | undefined;
          if (!type.startsWith("application/problem+json") || !problem?.type || !problem.title || problem.status !== res.status || !problem.code || !problem.request_id) {
            failures.push(`${res.status} not problem+json (${type}) ${where}: ${res.text.slice(0, 200)}`);
          }
        }
      }
    }
    console.log(`fuzz: ${requests} requests in ${((performance.now() - started) / 1000).toFixed(1)} s, ${failures.length} failures`);
    expect(failures).toEqual([]);
    const health = await server.api.get("/v1/health");
    expect(health.status).toBe(200);
  }, 300_000);
});
