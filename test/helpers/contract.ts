import { readFileSync } from "node:fs";
import { join } from "node:path";

/** One row of the endpoint catalog (test/contract/ENDPOINTS.md, a copy of the shared contract). */
export interface ContractOperation {
  number: number;
  method: string;
  /** As written in the catalog: `/v1/agents/{id}`. */
  path: string;
  auth: string;
  purpose: string;
}

export function contractOperations(): ContractOperation[] {
  const text = readFileSync(join(import.meta.dir, "..", "contract", "ENDPOINTS.md"), "utf8");
  const rows: ContractOperation[] = [];
  for (const line of text.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 7 || !/^\d+$/.test(cells[1])) continue;
    rows.push({ number: Number(cells[1]), method: cells[2], path: cells[3], auth: cells[4], purpose: cells[5] });
  }
  return rows;
}

/**
 * Operations Parley serves beyond the catalog, each for a reason written in README ("Departures from
 * the contract"): numbered from 1000 so they never collide with the catalog's.
 */
export const EXTENSIONS: ContractOperation[] = [
  // Issue 9: read-only keys may only GET, so search needs a GET form.
  { number: 1001, method: "GET", path: "/v1/knowledge-base/{id}/query", auth: "read", purpose: "Semantic search as a GET (read-only keys)" },
  // Issue 10: Telnyx streams a call's audio to a WebSocket of ours, which the catalogue has no row for.
  { number: 1002, method: "GET", path: "/v1/telephony/telnyx/stream", auth: "carrier", purpose: "WebSocket: Telnyx media streaming" },
  // Issue 13, the public front door: double opt-in needs its confirm step (and an unsubscribe), the demo a number check,
  // and what the forms and beacons stored needs an operator's list and export.
  { number: 1010, method: "POST", path: "/v1/newsletter/confirm", auth: "public", purpose: "Confirm a newsletter signup (double opt-in)" },
  { number: 1011, method: "POST", path: "/v1/newsletter/unsubscribe", auth: "public", purpose: "Unsubscribe from the newsletter" },
  { number: 1012, method: "POST", path: "/v1/demo/verify", auth: "public", purpose: "Prove a number with a spoken code before the demo calls it" },
  { number: 1013, method: "GET", path: "/v1/admin/contact-messages", auth: "operator", purpose: "Contact form messages" },
  { number: 1014, method: "GET", path: "/v1/admin/contact-messages/export", auth: "operator", purpose: "Contact form messages as CSV" },
  { number: 1015, method: "GET", path: "/v1/admin/newsletter-subscriptions", auth: "operator", purpose: "Newsletter subscriptions" },
  { number: 1016, method: "GET", path: "/v1/admin/newsletter-subscriptions/export", auth: "operator", purpose: "Newsletter subscriptions as CSV" },
  { number: 1017, method: "GET", path: "/v1/admin/client-events", auth: "operator", purpose: "Client-side events" },
  { number: 1018, method: "GET", path: "/v1/admin/client-events/export", auth: "operator", purpose: "Client-side events as CSV" },
  // Issue 13: the operator suspends and resumes a tenant; the catalog has no row for either.
  { number: 1020, method: "POST", path: "/v1/admin/workspaces/{id}/suspend", auth: "operator", purpose: "Suspend a tenant workspace (keys and calls stop at once)" },
  { number: 1021, method: "POST", path: "/v1/admin/workspaces/{id}/resume", auth: "operator", purpose: "Resume a suspended tenant workspace" },
  // Issue 13: the auto-recharge settings are changed by PATCH (137); a client also needs to read them.
  { number: 1022, method: "GET", path: "/v1/wallet/auto-recharge", auth: "read", purpose: "Automatic top-up settings" },
  // White-label: a domain is proven by a DNS record checked on demand, and an uploaded logo is served by Parley.
  { number: 1030, method: "POST", path: "/v1/white-label/domains/{domain}/verify", auth: "admin", purpose: "Verify a custom domain by its DNS TXT record" },
  { number: 1031, method: "GET", path: "/v1/branding/logos/{file}", auth: "public", purpose: "An uploaded logo, content-addressed" },
  // Issue 38: an agent's test suites (cases, runs, suite files) and draft versions published behind them.
  { number: 1040, method: "POST", path: "/v1/agents/{id}/tests", auth: "write", purpose: "Create a test case" },
  { number: 1041, method: "GET", path: "/v1/agents/{id}/tests", auth: "read", purpose: "List test cases" },
  { number: 1042, method: "GET", path: "/v1/agents/{id}/tests/{test_id}", auth: "read", purpose: "Get a test case" },
  { number: 1043, method: "PATCH", path: "/v1/agents/{id}/tests/{test_id}", auth: "write", purpose: "Update a test case" },
  { number: 1044, method: "DELETE", path: "/v1/agents/{id}/tests/{test_id}", auth: "write", purpose: "Delete a test case" },
  { number: 1045, method: "POST", path: "/v1/agents/{id}/tests/from-call", auth: "write", purpose: "Make a test case from a past call" },
  { number: 1046, method: "GET", path: "/v1/agents/{id}/tests/export", auth: "read", purpose: "Export the test cases as a suite file" },
  { number: 1047, method: "POST", path: "/v1/agents/{id}/tests/import", auth: "write", purpose: "Import a suite file (upsert by name)" },
  { number: 1048, method: "POST", path: "/v1/agents/{id}/test-runs", auth: "write", purpose: "Run test cases" },
  { number: 1049, method: "GET", path: "/v1/agents/{id}/test-runs", auth: "read", purpose: "List test runs" },
  { number: 1050, method: "GET", path: "/v1/agents/{id}/test-runs/{run_id}", auth: "read", purpose: "Get a test run with its results" },
  { number: 1051, method: "POST", path: "/v1/agents/{id}/test-runs/{run_id}/cancel", auth: "write", purpose: "Cancel a test run" },
  { number: 1052, method: "POST", path: "/v1/agents/{id}/versions", auth: "write", purpose: "Save a draft version" },
  { number: 1053, method: "POST", path: "/v1/agents/{id}/versions/{version}/publish", auth: "write", purpose: "Make a version live" },
];

/**
 * Where the document's `x-required-scope` departs from the catalog's Auth column (README, "Departures from
 * the contract"): the catalog's `read` means "an API key of any scope", but read-only keys make GET
 * requests only, so a read by POST takes a write key.
 */
export const SCOPE_DEPARTURES = new Map([["POST /v1/knowledge-base/{id}/query", "write"]]);

/** The catalog's implemented operations plus Parley's extensions: what /openapi.json must list. */
export function servedOperations(): ContractOperation[] {
  return [...contractOperations().filter((op) => IMPLEMENTED.has(op.number)), ...EXTENSIONS];
}

/** The numbers this codebase implements so far (ENDPOINTS.md numbering). */
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
export const IMPLEMENTED = new Set([...range(1, 56), ...range(57, 92), ...range(93, 102), ...range(103, 119), ...range(120, 122), ...range(123, 134), ...range(135, 147), ...range(148, 151), ...range(152, 155), 156]);

/** `/v1/agents/{id}` → the matching key form used by the OpenAPI document (identical), and a regex for URLs. */
export function samePath(a: string, b: string): boolean {
  const norm = (p: string) => p.replace(/\{[^}]+\}/g, "{}");
  return norm(a) === norm(b);
}

/** Operations that end the caller's own session: matrices give them a fresh session per call. */
export const SESSION_ENDING = new Set(["POST /v1/auth/logout"]);

/** The document with every `$ref` replaced by what it names (for tests that read schemas in place). */
export function dereference<T>(doc: T): T {
  const root = doc as Record<string, any>;
  const resolve = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(resolve);
    if (!node || typeof node !== "object") return node;
    const ref = (node as { $ref?: string }).$ref;
    if (typeof ref === "string" && ref.startsWith("#/")) {
      const target = ref.slice(2).split("/").reduce((at: any, key) => at?.[key.replace(/~1/g, "/").replace(/~0/g, "~")], root);
      return resolve(target);
    }
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolve(value)]));
  };
  return resolve(doc) as T;
}
