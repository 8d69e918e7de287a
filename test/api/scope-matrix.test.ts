// Every implemented operation × every kind of credential: who gets in, who gets 401/403.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { EXTENSIONS, IMPLEMENTED, SESSION_ENDING, servedOperations } from "../helpers/contract.ts";
import { addMember, createKey, registerUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

type Kind = "owner" | "admin-member" | "member" | "viewer" | "admin-key" | "write-key" | "read-key" | "none";
const KINDS: Kind[] = ["owner", "admin-member", "member", "viewer", "admin-key", "write-key", "read-key", "none"];
const IS_KEY: Record<Kind, boolean> = { owner: false, "admin-member": false, member: false, viewer: false, "admin-key": true, "write-key": true, "read-key": true, none: false };
const LEVEL: Record<Kind, number> = { owner: 3, "admin-member": 3, member: 2, viewer: 1, "admin-key": 3, "write-key": 2, "read-key": 1, none: 0 };
const NEEDED: Record<string, number> = { read: 1, write: 2, admin: 3 };


let server: TestServer;
const tokens = {} as Record<Kind, string | undefined>;
const logins = {} as Record<string, { email: string; password: string; workspaceId: string }>;

beforeAll(async () => {
  server = await startTestServer();
  const owner = await registerUser(server.api, "owner");
  tokens.owner = owner.token;
  logins.owner = owner;
  for (const [kind, role] of [["admin-member", "admin"], ["member", "member"], ["viewer", "viewer"]] as const) {
    const m = await addMember(server.api, owner, role);
    tokens[kind] = m.token;
    logins[kind] = m;
  }
  tokens["admin-key"] = (await createKey(server.api, owner.token, "admin")).secret;
  tokens["write-key"] = (await createKey(server.api, owner.token, "write")).secret;
  tokens["read-key"] = (await createKey(server.api, owner.token, "read-only")).secret;
  tokens.none = undefined;
});
afterAll(() => server.stop());

async function freshToken(kind: Kind): Promise<string | undefined> {
  if (IS_KEY[kind] || kind === "none") return tokens[kind];
  const login = logins[kind];
  const res = await server.api.post("/v1/auth/login", { email: login.email, password: login.password, workspace_id: login.workspaceId });
  return res.body.access_token;
}

function expectation(auth: string, kind: Kind, method: string): "allowed" | "unauthorized" | "insufficient_scope" | "forbidden" {
  if (auth === "public") return "allowed";
  // A carrier's callback is proven by the carrier's signature, which no Parley credential replaces.
  if (auth === "carrier") return "forbidden";
  if (kind === "none") return "unauthorized";
  // A browser session is admitted by its single-use token alone: no API key or session stands in for it.
  if (auth === "token") return "unauthorized";
  // The specification: read-only keys make GET requests only, whatever the route's level.
  if (kind === "read-key" && method !== "GET" && auth !== "user") return auth === "operator" ? "forbidden" : "insufficient_scope";
  if (auth === "user") return IS_KEY[kind] ? "forbidden" : "allowed";
  if (auth === "operator") return "forbidden"; // this workspace is not the operator's
  return LEVEL[kind] >= NEEDED[auth] ? "allowed" : "insufficient_scope";
}

const operations = servedOperations();
/** WebSockets whose caller proves itself inside the protocol (Telnyx signs no handshake). */
const IN_PROTOCOL = new Set(["GET /v1/telephony/telnyx/stream"]);
/** A WebSocket operation is asked for an upgrade, so its guard (not the missing upgrade) answers. */
const UPGRADE = { upgrade: "websocket", connection: "Upgrade", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==", "sec-websocket-version": "13" };

describe("scope matrix", () => {
  test("covers every implemented operation", () => {
    expect(operations).toHaveLength(IMPLEMENTED.size + EXTENSIONS.length);
  });

  for (const op of operations) {
    test(`${op.number} ${op.method} ${op.path} (${op.auth})`, async () => {
      // Admitted by the token its first message carries, not at the handshake (telnyx.test.ts tests it).
      if (IN_PROTOCOL.has(`${op.method} ${op.path}`)) return;
      const path = op.path.replace(/\{[^}]+\}/g, "zz_doesnotexist");
      for (const kind of KINDS) {
        const token = SESSION_ENDING.has(`${op.method} ${op.path}`) ? await freshToken(kind) : tokens[kind];
        // An empty JSON object: auth must be decided before the body is even validated.
        const body = ["POST", "PATCH", "PUT"].includes(op.method) ? {} : undefined;
        const upgrade = op.purpose.startsWith("WebSocket") ? UPGRADE : undefined;
        const res = await server.api.request(op.method, path, body, { token, headers: upgrade });
        const expected = expectation(op.auth, kind, op.method);
        const outcome = `${kind}: ${res.status} ${res.body?.code ?? ""}`;
        if (expected === "allowed") {
          expect(outcome).not.toMatch(/: 40[13] /);
          expect(res.status).toBeLessThan(500);
        } else if (expected === "unauthorized") {
          expect(outcome).toBe(`${kind}: 401 unauthorized`);
        } else {
          expect(outcome).toBe(`${kind}: 403 ${expected}`);
        }
        expect(res.headers.get("content-type") ?? "").not.toContain("text/html");
      }
    });
  }
});

type KeyScope = "read-only" | "write" | "admin";
const KEY_KIND: Record<KeyScope, Kind> = { "read-only": "read-key", write: "write-key", admin: "admin-key" };

/** What a key of `scope` must get from an operation, judged by the document's `x-required-scope` alone. */
function documentedOutcome(required: string, scope: KeyScope): string {
  if (required in NEEDED) return LEVEL[KEY_KIND[scope]] >= NEEDED[required] ? "allowed" : "403 insufficient_scope";
  if (required === "public") return "allowed";
  if (required === "token") return "401 unauthorized"; // only the single-use session token admits
  return "403 forbidden"; // user (a person's token), operator (not this workspace), carrier (its own signature)
}

describe("the document's x-required-scope is what the server enforces on API keys", () => {
  test("every operation of /openapi.json, with a read-only, a write and an admin key", async () => {
    const doc = (await server.api.get("/openapi.json")).body;
    const mismatches: string[] = [];
    let checked = 0;
    for (const [template, operationsOfPath] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [lower, op] of Object.entries<any>(operationsOfPath)) {
        const method = lower.toUpperCase();
        if (IN_PROTOCOL.has(`${method} ${template}`)) continue;
        const path = template.replace(/\{[^}]+\}/g, "zz_doesnotexist");
        const body = ["POST", "PATCH", "PUT"].includes(method) ? {} : undefined;
        const upgrade = op.responses["101"] ? UPGRADE : undefined;
        for (const scope of ["read-only", "write", "admin"] as const) {
          const res = await server.api.request(method, path, body, { token: tokens[KEY_KIND[scope]], headers: upgrade });
          const expected = documentedOutcome(op["x-required-scope"], scope);
          const got = expected === "allowed" && res.status !== 401 && res.status !== 403 && res.status < 500 ? "allowed" : `${res.status} ${res.body?.code ?? ""}`.trim();
          if (got !== expected) mismatches.push(`${method} ${template} (x-required-scope ${op["x-required-scope"]}), ${scope} key: expected ${expected}, got ${got}`);
          checked++;
        }
      }
    }
    expect(mismatches).toEqual([]);
    expect(checked).toBe(3 * (operations.length - IN_PROTOCOL.size));
  });
});
