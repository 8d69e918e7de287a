// The served document through the two linters generators are judged by, run from devDependencies:
// Redocly's recommended rules and Spectral's `spectral:oas`. No errors; the only warnings are the few
// below, each a fact of the contract rather than a flaw of the document.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/process.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

/** rule → the paths where it is expected, and why. */
const EXPECTED_WARNINGS: Record<string, { where: string[]; why: string }> = {
  // A WebSocket route answers 101 and then speaks its own protocol; it has no 2xx to document.
  "operation-2xx-response": { where: ["/v1/realtime/session", "/v1/telephony/twilio/stream", "/v1/telephony/telnyx/stream"], why: "WebSocket upgrade" },
  "operation-success-response": { where: ["/v1/realtime/session", "/v1/telephony/twilio/stream", "/v1/telephony/telnyx/stream"], why: "WebSocket upgrade" },
  // ENDPOINTS.md fixes both paths; `events` is matched literally first and endpoint ids are `we_…`.
  "no-ambiguous-paths": { where: ["/v1/webhooks/{id}/rotate-secret", "/v1/webhooks/{id}/test"], why: "contract paths" },
};

let server: TestServer;
let dir: string;
let file: string;
beforeAll(async () => {
  // A public URL like a real deployment's (Redocly flags localhost servers).
  server = await startTestServer({ settings: { publicUrl: "https://voice.acme.test" } });
  dir = mkdtempSync(join(tmpdir(), "parley-lint-"));
  file = join(dir, "openapi.json");
  writeFileSync(file, JSON.stringify((await server.api.get("/openapi.json")).body));
});
afterAll(async () => {
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(args: string[]): Promise<string> {
  const child = Bun.spawn(["node", ...args], { cwd: dir, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", REDOCLY_TELEMETRY: "off", SCARF_ANALYTICS: "false" } });
  const [stdout] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return stdout;
}

function unexpected(found: { rule: string; severity: string; path: string }[]): string[] {
  return found
    .filter((p) => p.severity !== "warning" || !EXPECTED_WARNINGS[p.rule]?.where.some((where) => p.path.includes(where)))
    .map((p) => `${p.severity} ${p.rule} at ${p.path}`);
}

describe("the OpenAPI document under the linters", () => {
  test("Redocly (recommended rules): no errors, no unexpected warnings", async () => {
    const out = JSON.parse(await run([join(ROOT, "node_modules/@redocly/cli/bin/cli.js"), "lint", file, "--format=json"]));
    const found = (out.problems as any[]).map((p) => ({ rule: p.ruleId, severity: p.severity === "warn" ? "warning" : p.severity, path: decodeURIComponent(p.location[0].pointer).replace(/~1/g, "/") }));
    expect(out.totals.errors).toBe(0);
    expect(unexpected(found)).toEqual([]);
  }, 60_000);

  test("Spectral (spectral:oas): no errors, no unexpected warnings", async () => {
    const out = JSON.parse(await run([join(ROOT, "node_modules/@stoplight/spectral-cli/dist/index.js"), "lint", "-r", join(ROOT, "test/contract/spectral.yaml"), "-f", "json", file]));
    const severity = ["error", "warning", "info", "hint"];
    const found = (out as any[]).map((p) => ({ rule: p.code, severity: severity[p.severity], path: (p.path as string[]).join("/") }));
    expect(found.filter((p) => p.severity === "error")).toEqual([]);
    expect(unexpected(found.filter((p) => p.severity !== "hint" && p.severity !== "info"))).toEqual([]);
  }, 60_000);

  test("names its schemas: resources, request bodies, lists and events are components referenced by $ref", async () => {
    const doc = (await server.api.get("/openapi.json")).body;
    const schemas = doc.components.schemas;
    for (const name of ["Agent", "Call", "Campaign", "Problem", "AgentCreate", "OutboundCallRequest", "AgentList", "CallEndedEvent", "CallCompletedEvent", "WebhookTestEvent"]) expect(schemas[name], name).toBeDefined();
    const agent = doc.paths["/v1/agents/{id}"].get.responses["200"].content["application/json"].schema;
    expect(agent).toEqual({ $ref: "#/components/schemas/Agent" });
    expect(doc.paths["/v1/agents"].post.requestBody.content["application/json"].schema).toEqual({ $ref: "#/components/schemas/AgentCreate" });
    // Every JSON body and answer of an operation is a named component.
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const bodies = [op.requestBody?.content?.["application/json"]?.schema, ...Object.values<any>(op.responses).map((r) => r.content?.["application/json"]?.schema)].filter(Boolean);
        for (const schema of bodies) expect(schema.$ref ? "ref" : `${method} ${path} inline`).toBe("ref");
      }
    }
    // Every tag is described.
    for (const tag of doc.tags) expect(tag.description?.length, tag.name).toBeGreaterThan(10);
  });
});
