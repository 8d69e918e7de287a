// Widgets (93-102): CRUD with validation of every field, and the public routes a visitor's page calls:
// origin checks and CORS, config, the runtime script, chat with the agent's real brain and its limits,
// the preview page, voice tokens, and a deleted widget going dark at once.
import { beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { realtimeTokens, widgetSessions } from "../../src/db/schema/index.ts";
import { WIDGET_LIMITS } from "../../src/modules/widgets/limits.ts";
import { normalizeAllowedOrigin, normalizeRequestOrigin, originAllowed } from "../../src/modules/widgets/origins.ts";
import { widgetsUsingAgent } from "../../src/modules/widgets/service.ts";
import { chromiumAvailable, hostPages, launchChromium } from "../helpers/chromium.ts";
import { createKey, registerUser, serverWithUser } from "../helpers/fixtures.ts";
import { startFakeOpenAI } from "../helpers/fake-openai.ts";
import { startTestServer } from "../helpers/server.ts";

// The local proxy is trusted, so each test can speak as its own visitor IP through X-Forwarded-For.
const s = serverWithUser("widgets", { settings: { trustedProxies: "127.0.0.1" } });
// A key, not the user's 15-minute access token: some tests move the clock by hours.
let key: string;
beforeAll(async () => {
  key = (await createKey(s.server.api, s.user.token, "admin")).secret;
});
const as = () => ({ token: key });
let nextIp = 1;
const newVisitor = () => `198.51.100.${nextIp++}`;
const SHOP = "https://shop.example.com";

/** A page at `origin` calling the widget, as visitor `ip`. */
const page = (origin: string | null, ip = "203.0.113.7") => ({ headers: { "x-forwarded-for": ip, ...(origin === null ? {} : { origin }) } });

/** A flow agent (no model needed) that asks two questions, with a transcriber that needs nothing installed. */
async function flowAgent(name = "Desk") {
  const provider = await s.server.api.post("/v1/providers", { name: `speech for ${name}`, kind: "openai-compatible", base_url: "https://models.example.com/v1" }, as());
  expect(provider.status).toBe(201);
  const flow = {
    start: "name",
    nodes: {
      name: { type: "ask", text: "What is your name?", slot: { name: "name", type: "string" }, next: "colour" },
      colour: { type: "ask", text: "Nice to meet you, {{name}}. Your favourite colour?", slot: { name: "colour", type: "string" }, next: "bye" },
      bye: { type: "end", text: "{{colour}} it is. Goodbye {{name}}!" },
    },
  };
  const agent = await s.server.api.post("/v1/agents", { name, brain: { type: "flow", flow }, transcriber: { provider_id: provider.body.id } }, as());
  expect(agent.status).toBe(201);
  return agent.body as { id: string; name: string };
}

async function newWidget(body: Record<string, unknown> = {}) {
  const agentId = (body.agent_id as string | undefined) ?? (await flowAgent()).id;
  const res = await s.server.api.post("/v1/widgets", { name: "Shop help", allowed_origins: [SHOP], ...body, agent_id: agentId }, as());
  expect(res.status).toBe(201);
  return res.body;
}

const chat = (id: string, body: unknown, origin: string | null = SHOP, ip?: string) => s.server.api.post(`/v1/widgets/${id}/chat`, body, page(origin, ip));
const fields = (res: { body: any }) => (res.body?.errors ?? []).map((e: { field: string }) => e.field);

describe("widget CRUD", () => {
  test("create with defaults, read, list with a cursor, merge look on PATCH, delete", async () => {
    const agent = await flowAgent("Concierge");
    const created = await s.server.api.post("/v1/widgets", { agent_id: agent.id, name: "Front page", allowed_origins: ["HTTPS://Shop.Example.com:443", "https://*.example.org", "http://localhost:3000"] }, as());
    expect(created.status).toBe(201);
    const w = created.body;
    expect(w.id).toMatch(/^wgt_/);
    expect(w).toMatchObject({
      object: "widget",
      agent_id: agent.id,
      name: "Front page",
      allowed_origins: [SHOP, "https://*.example.org", "http://localhost:3000"],
      mode: "both",
      look: { title: "Front page", greeting: null, primary_color: "#2563eb", background_color: "#ffffff", text_color: "#111827", position: "bottom-right", avatar_url: null },
    });
    expect(w.embed).toEqual({
      script_url: `${s.server.url}/v1/widgets/${w.id}/embed.js`,
      snippet: `<script src="${s.server.url}/v1/widgets/${w.id}/embed.js" async></script>`,
      preview_url: `${s.server.url}/v1/widgets/${w.id}/preview`,
    });
    expect(Date.parse(w.created_at)).toBeGreaterThan(0);
    expect((await s.server.api.get(`/v1/widgets/${w.id}`, as())).body).toEqual(w);

    const patched = await s.server.api.patch(`/v1/widgets/${w.id}`, { mode: "chat", look: { primary_color: "#FF0000", greeting: "Hi there!" } }, as());
    expect(patched.status).toBe(200);
    expect(patched.body.look).toEqual({ ...w.look, primary_color: "#ff0000", greeting: "Hi there!" });
    const again = await s.server.api.patch(`/v1/widgets/${w.id}`, { name: "Renamed", look: { position: "bottom-left", avatar_url: "https://cdn.example.com/a.png" }, allowed_origins: ["https://a.example.com", "https://A.example.com"] }, as());
    expect(again.body).toMatchObject({ name: "Renamed", mode: "chat", allowed_origins: ["https://a.example.com"] });
    // Field by field: the earlier colour and greeting stay; the title stays what it was.
    expect(again.body.look).toEqual({ ...w.look, primary_color: "#ff0000", greeting: "Hi there!", position: "bottom-left", avatar_url: "https://cdn.example.com/a.png" });
    expect((await s.server.api.patch(`/v1/widgets/${w.id}`, { look: { greeting: null } }, as())).body.look.greeting).toBeNull();

    const other = await registerUser(s.server.api, "widgets-list");
    const otherAgent = await s.server.api.post("/v1/agents", { name: "Lister" }, { token: other.token });
    const ids: string[] = [];
    for (const name of ["one", "two", "three"]) {
      ids.unshift((await s.server.api.post("/v1/widgets", { agent_id: otherAgent.body.id, name }, { token: other.token })).body.id);
      s.server.clock.advance(1);
    }
    const first = await s.server.api.get("/v1/widgets?limit=2", { token: other.token });
    expect(first.body.data.map((x: any) => x.id)).toEqual(ids.slice(0, 2));
    expect(first.body.has_more).toBe(true);
    const second = await s.server.api.get(`/v1/widgets?limit=2&cursor=${first.body.next_cursor}`, { token: other.token });
    expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(second.body.data.map((x: any) => x.id)).toEqual(ids.slice(2));
    // Created without allowed_origins: none yet (only the preview works).
    expect(second.body.data[0].allowed_origins).toEqual([]);

    expect((await s.server.api.delete(`/v1/widgets/${w.id}`, as())).status).toBe(204);
    expect((await s.server.api.get(`/v1/widgets/${w.id}`, as())).status).toBe(404);
    expect((await s.server.api.delete(`/v1/widgets/${w.id}`, as())).status).toBe(404);
  });

  test("every field is validated, and the error names it", async () => {
    const agent = await flowAgent("Validated");
    const stranger = await registerUser(s.server.api, "widgets-stranger");
    const theirs = await s.server.api.post("/v1/agents", { name: "Theirs" }, { token: stranger.token });
    const ok = { agent_id: agent.id, name: "Valid", allowed_origins: [SHOP] };
    const long = (n: number) => "x".repeat(n);
    const rows: [string, Record<string, unknown>, number, string][] = [
      ["no agent_id", { name: "x" }, 422, "agent_id"],
      ["unknown agent", { ...ok, agent_id: "agent_doesnotexist" }, 422, "agent_id"],
      ["another workspace's agent", { ...ok, agent_id: theirs.body.id }, 422, "agent_id"],
      ["no name", { agent_id: agent.id }, 422, "name"],
      ["empty name", { ...ok, name: "" }, 422, "name"],
      ["blank name", { ...ok, name: "   " }, 422, "name"],
      ["name too long", { ...ok, name: long(101) }, 422, "name"],
      ["origins not a list", { ...ok, allowed_origins: SHOP }, 422, "allowed_origins"],
      ["no origins", { ...ok, allowed_origins: [] }, 422, "allowed_origins"],
      ["too many origins", { ...ok, allowed_origins: Array.from({ length: 51 }, (_, i) => `https://s${i}.example.com`) }, 422, "allowed_origins"],
      ["a bare *", { ...ok, allowed_origins: ["*"] }, 422, "allowed_origins[0]"],
      ["a trailing slash", { ...ok, allowed_origins: [SHOP, "https://b.example.com/"] }, 422, "allowed_origins[1]"],
      ["a path", { ...ok, allowed_origins: [SHOP, SHOP, "https://b.example.com/shop"] }, 422, "allowed_origins[2]"],
      ["a query", { ...ok, allowed_origins: ["https://b.example.com?x=1"] }, 422, "allowed_origins[0]"],
      ["no scheme", { ...ok, allowed_origins: ["shop.example.com"] }, 422, "allowed_origins[0]"],
      ["another scheme", { ...ok, allowed_origins: ["ftp://shop.example.com"] }, 422, "allowed_origins[0]"],
      ["wildcard over a TLD", { ...ok, allowed_origins: ["https://*.com"] }, 422, "allowed_origins[0]"],
      ["wildcard in the middle", { ...ok, allowed_origins: ["https://shop.*.example.com"] }, 422, "allowed_origins[0]"],
      ["wildcard over an IP", { ...ok, allowed_origins: ["https://*.10.0.0.1"] }, 422, "allowed_origins[0]"],
      ["port out of range", { ...ok, allowed_origins: ["https://shop.example.com:70000"] }, 422, "allowed_origins[0]"],
      ["credentials", { ...ok, allowed_origins: ["https://user:pw@shop.example.com"] }, 422, "allowed_origins[0]"],
      ["bad host", { ...ok, allowed_origins: ["https://exa mple.com"] }, 422, "allowed_origins[0]"],
      ["bad IPv4", { ...ok, allowed_origins: ["http://300.1.1.1"] }, 422, "allowed_origins[0]"],
      ["origin not a string", { ...ok, allowed_origins: [SHOP, 42] }, 422, "allowed_origins[1]"],
      ["unknown mode", { ...ok, mode: "video" }, 422, "mode"],
      ["look not an object", { ...ok, look: "blue" }, 422, "look"],
      ["unknown look field", { ...ok, look: { font: "Comic Sans" } }, 422, "look.font"],
      ["empty title", { ...ok, look: { title: "" } }, 422, "look.title"],
      ["blank title", { ...ok, look: { title: "  " } }, 422, "look.title"],
      ["title too long", { ...ok, look: { title: long(61) } }, 422, "look.title"],
      ["greeting too long", { ...ok, look: { greeting: long(501) } }, 422, "look.greeting"],
      ["colour by name", { ...ok, look: { primary_color: "blue" } }, 422, "look.primary_color"],
      ["short hex colour", { ...ok, look: { background_color: "#fff" } }, 422, "look.background_color"],
      ["not hex", { ...ok, look: { text_color: "#gggggg" } }, 422, "look.text_color"],
      ["unknown position", { ...ok, look: { position: "top-left" } }, 422, "look.position"],
      ["http avatar", { ...ok, look: { avatar_url: "http://cdn.example.com/a.png" } }, 422, "look.avatar_url"],
      ["avatar not a URL", { ...ok, look: { avatar_url: "a.png" } }, 422, "look.avatar_url"],
      ["avatar too long", { ...ok, look: { avatar_url: `https://cdn.example.com/${long(2048)}` } }, 422, "look.avatar_url"],
      ["unknown field", { ...ok, colour: "red" }, 422, "colour"],
    ];
    for (const [why, body, status, field] of rows) {
      const res = await s.server.api.post("/v1/widgets", body, as());
      expect(`${why}: ${res.status}`).toBe(`${why}: ${status}`);
      expect(res.headers.get("content-type")).toStartWith("application/problem+json");
      expect(res.body.code).toBe("validation_failed");
      expect(fields(res)).toContain(field);
      expect(res.body.detail.length).toBeGreaterThan(5);
    }
    // Each bad origin is named, with what is wrong with it.
    const several = await s.server.api.post("/v1/widgets", { ...ok, allowed_origins: ["*", SHOP, "https://b.example.com/"] }, as());
    expect(several.body.errors).toEqual([
      { field: "allowed_origins[0]", message: expect.stringContaining("every web site") },
      { field: "allowed_origins[2]", message: expect.stringContaining("no path") },
    ]);

    const widget = await newWidget({ agent_id: agent.id });
    const patches: [Record<string, unknown>, string][] = [
      [{ agent_id: theirs.body.id }, "agent_id"],
      [{ name: "" }, "name"],
      [{ allowed_origins: [] }, "allowed_origins"],
      [{ allowed_origins: [SHOP, "*"] }, "allowed_origins[1]"],
      [{ mode: "text" }, "mode"],
      [{ look: { primary_color: "red" } }, "look.primary_color"],
      [{ look: { title: null } }, "look.title"],
      [{ look: { avatar_url: "ftp://x.example.com/a.png" } }, "look.avatar_url"],
      [{ id: "wgt_other" }, "id"],
    ];
    for (const [body, field] of patches) {
      const res = await s.server.api.patch(`/v1/widgets/${widget.id}`, body, as());
      expect(`${JSON.stringify(body)}: ${res.status}`).toBe(`${JSON.stringify(body)}: 422`);
      expect(fields(res)).toContain(field);
    }
    // Nothing of the refused patches stuck.
    expect((await s.server.api.get(`/v1/widgets/${widget.id}`, as())).body).toMatchObject({ name: "Shop help", allowed_origins: [SHOP], agent_id: agent.id, look: { primary_color: "#2563eb" } });
  });

  test("another workspace's credentials get 404 on every widget route, and never see it listed", async () => {
    const widget = await newWidget();
    const other = await registerUser(s.server.api, "widgets-other");
    const key = await createKey(s.server.api, other.token, "admin");
    for (const token of [other.token, key.secret]) {
      expect((await s.server.api.get(`/v1/widgets/${widget.id}`, { token })).status).toBe(404);
      expect((await s.server.api.patch(`/v1/widgets/${widget.id}`, { name: "mine now" }, { token })).status).toBe(404);
      expect((await s.server.api.delete(`/v1/widgets/${widget.id}`, { token })).status).toBe(404);
      const list = await s.server.api.get("/v1/widgets", { token });
      expect(list.text).not.toContain(widget.id);
    }
    expect((await s.server.api.get(`/v1/widgets/${widget.id}`, as())).body.name).toBe("Shop help");
  });

  test("widgetsUsingAgent names the widgets an agent's deletion would strand", async () => {
    const agent = await flowAgent("Used");
    const widget = await newWidget({ agent_id: agent.id, name: "Pricing page" });
    expect(widgetsUsingAgent(s.server.ctx, s.user.workspaceId, agent.id)).toEqual([`widget ${widget.id} "Pricing page" talks with it`]);
    expect(widgetsUsingAgent(s.server.ctx, "ws_someoneelse", agent.id)).toEqual([]);
  });
});

describe("origins", () => {
  const allowed = [SHOP, "https://*.example.org", "http://localhost:3000", "http://[::1]:8080"].map((o) => (normalizeAllowedOrigin(o) as { origin: string }).origin);
  const table: [string, boolean][] = [
    [SHOP, true],
    ["https://SHOP.example.com", true],
    ["https://shop.example.com:443", true],
    ["http://shop.example.com", false], // scheme
    ["https://shop.example.com:8443", false], // port
    ["https://www.shop.example.com", false], // an exact origin covers no subdomain
    ["https://example.com", false],
    ["https://a.example.org", true],
    ["https://a.b.c.example.org", true], // any depth
    ["https://example.org", false], // never the bare domain
    ["http://a.example.org", false],
    ["https://a.example.org:8443", false],
    ["https://evilexample.org", false],
    ["https://example.org.evil.net", false],
    ["http://localhost:3000", true],
    ["http://localhost:3001", false],
    ["http://localhost", false],
    ["https://localhost:3000", false],
    ["http://[::1]:8080", true],
    ["null", false],
    ["", false],
    ["https://shop.example.com/", false],
  ];

  test("matching: exact, wildcard at any depth but not the bare domain, same scheme and port", () => {
    for (const [origin, expected] of table) expect(`${origin} ${originAllowed(allowed, normalizeRequestOrigin(origin))}`).toBe(`${origin} ${expected}`);
  });

  test("the same table over HTTP: CORS headers only for allowed origins, 403 otherwise", async () => {
    const widget = await newWidget({ allowed_origins: [SHOP, "https://*.example.org", "http://localhost:3000", "http://[::1]:8080"] });
    for (const [origin, expected] of table) {
      if (origin === "") continue; // fetch drops an empty header
      const res = await s.server.api.get(`/v1/widgets/${widget.id}/config`, page(origin));
      expect(`${origin} ${res.status}`).toBe(`${origin} ${expected ? 200 : 403}`);
      expect(res.headers.get("vary")).toContain("Origin");
      if (expected) {
        expect(res.headers.get("access-control-allow-origin")).toBe(origin);
      } else {
        expect([...res.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
        expect(res.body).toMatchObject({ code: "forbidden", detail: expect.stringContaining(origin) });
      }
    }
    // No Origin at all (not a browser page): 403 saying so.
    const bare = await s.server.api.get(`/v1/widgets/${widget.id}/config`, page(null));
    expect(bare.status).toBe(403);
    expect(bare.body.detail).toContain("no Origin header");
  });

  test("preflight: allowed origins get POST and Content-Type; others 403 without CORS headers", async () => {
    const widget = await newWidget();
    for (const path of ["chat", "voice-token"]) {
      const preflight = (origin: string) =>
        s.server.api.request("OPTIONS", `/v1/widgets/${widget.id}/${path}`, undefined, { headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "content-type" } });
      const ok = await preflight(SHOP);
      expect(ok.status).toBe(204);
      expect(ok.headers.get("access-control-allow-origin")).toBe(SHOP);
      expect(ok.headers.get("access-control-allow-methods")).toContain("POST");
      expect(ok.headers.get("access-control-allow-headers")?.toLowerCase()).toContain("content-type");
      expect(ok.headers.get("vary")).toContain("Origin");
      const refused = await preflight("https://evil.example.net");
      expect(refused.status).toBe(403);
      expect([...refused.headers.keys()].filter((name) => name.startsWith("access-control-"))).toEqual([]);
      const unknown = await s.server.api.request("OPTIONS", `/v1/widgets/wgt_doesnotexist/${path}`, undefined, { headers: { origin: SHOP } });
      expect(unknown.status).toBe(404);
    }
  });

  test("errors an allowed page gets are readable by it (CORS on 4xx too); a page not allowed gets none", async () => {
    const widget = await newWidget();
    const invalid = await chat(widget.id, { message: "   " });
    expect(invalid.status).toBe(422);
    expect(invalid.headers.get("access-control-allow-origin")).toBe(SHOP);
    const evil = await chat(widget.id, { message: "hello" }, "https://evil.example.net");
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
  });

  test("the instance's own origin (the preview page) may always use a widget", async () => {
    const widget = await newWidget({ allowed_origins: [SHOP] });
    const own = s.server.url;
    const res = await chat(widget.id, { message: "Ada" }, own);
    expect(res.status).toBe(200);
    // Browsers send no Origin on a same-origin GET: Sec-Fetch-Site says where it came from.
    const config = await s.server.api.get(`/v1/widgets/${widget.id}/config`, { headers: { "sec-fetch-site": "same-origin" } });
    expect(config.status).toBe(200);
    const crossSite = await s.server.api.get(`/v1/widgets/${widget.id}/config`, { headers: { "sec-fetch-site": "cross-site" } });
    expect(crossSite.status).toBe(403);
  });
});

describe("config, script and preview", () => {
  test("config carries what the page draws and nothing secret", async () => {
    const agent = await flowAgent("Nora");
    const widget = await newWidget({ agent_id: agent.id, mode: "chat", look: { title: "Ask Nora", greeting: "Hello!", primary_color: "#112233" } });
    const res = await s.server.api.get(`/v1/widgets/${widget.id}/config`, page(SHOP));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: widget.id, object: "widget_config", mode: "chat", look: { ...widget.look }, agent_name: "Nora" });
    expect(res.body.look).toMatchObject({ title: "Ask Nora", greeting: "Hello!", primary_color: "#112233" });
    for (const secret of [agent.id, s.user.workspaceId, s.user.userId, SHOP]) expect(res.text).not.toContain(secret);
    expect(res.headers.get("cache-control")).toBe("no-cache");
  });

  test("a widget whose agent is gone: config still answers (no agent name), chat and voice say so without naming ids", async () => {
    const agent = await flowAgent("Doomed");
    const widget = await newWidget({ agent_id: agent.id });
    s.server.ctx.sqlite.prepare("DELETE FROM agents WHERE id = ?").run(agent.id);
    const config = await s.server.api.get(`/v1/widgets/${widget.id}/config`, page(SHOP));
    expect(config.body.agent_name).toBeNull();
    for (const res of [await chat(widget.id, { message: "hi" }), await s.server.api.post(`/v1/widgets/${widget.id}/voice-token`, {}, page(SHOP))]) {
      expect(res.status).toBe(409);
      expect(res.body.code).toBe("agent_not_ready");
      expect(res.text).not.toContain(agent.id);
    }
  });

  test("embed.js: the runtime script, cacheable, ETag and 304, gzip when asked", async () => {
    const widget = await newWidget();
    const url = `${s.server.url}/v1/widgets/${widget.id}/embed.js`;
    const res = await fetch(url, { headers: { "accept-encoding": "identity" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("access-control-allow-origin")).toBeNull();
    const etag = res.headers.get("etag")!;
    expect(etag).toMatch(/^"sha256-[0-9a-f]{16}"$/);
    const script = await res.text();
    expect(script).toContain("/v1/widgets/");
    const cached = await fetch(url, { headers: { "if-none-match": etag } });
    expect(cached.status).toBe(304);
    expect(cached.headers.get("etag")).toBe(etag);
    expect((await fetch(url, { headers: { "if-none-match": `"other", W/${etag}` } })).status).toBe(304);
    expect((await fetch(url, { headers: { "if-none-match": '"other"' } })).status).toBe(200);
    const gzipped = await fetch(url, { headers: { "accept-encoding": "gzip" }, decompress: false } as RequestInit);
    expect(gzipped.headers.get("content-encoding")).toBe("gzip");
    expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gzipped.arrayBuffer())))).toBe(script);
    const unknown = await s.server.api.get("/v1/widgets/wgt_doesnotexist/embed.js");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toStartWith("application/problem+json");
  });

  test("preview: an HTML page loading the widget, under a strict CSP", async () => {
    const widget = await newWidget({ look: { title: "Try <me>" } });
    const res = await s.server.api.get(`/v1/widgets/${widget.id}/preview`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.text).toContain(`<script src="${s.server.url}/v1/widgets/${widget.id}/embed.js" async></script>`);
    expect(res.text).toContain("Try &lt;me&gt;");
    const csp = Object.fromEntries(res.headers.get("content-security-policy")!.split(/;\s*/).map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    expect(csp["default-src"]).toEqual(["'none'"]);
    expect(csp["script-src"]).toEqual([s.server.url]);
    expect(csp["connect-src"]).toEqual([s.server.url, s.server.url.replace(/^http/, "ws")]);
    expect(csp["img-src"]).toEqual([s.server.url, "https:", "data:"]);
    expect(csp["media-src"]).toEqual(["blob:"]);
    expect(csp["style-src"]).toEqual(["'none'"]);
    const unknown = await s.server.api.get("/v1/widgets/wgt_doesnotexist/preview");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toStartWith("application/problem+json");
  });
});

describe("chat", () => {
  test("a conversation with the agent's real brain, kept across messages by session id", async () => {
    const widget = await newWidget();
    const ip = newVisitor();
    const first = await chat(widget.id, { message: "  Ada Lovelace  " }, SHOP, ip);
    expect(first.status).toBe(200);
    expect(Object.keys(first.body).sort()).toEqual(["ended", "reply", "session_id"]);
    expect(first.body.session_id).toMatch(/^cht_/);
    // The new conversation opens with the agent's question, then answers the message.
    expect(first.body).toMatchObject({ reply: "What is your name? Nice to meet you, Ada Lovelace. Your favourite colour?", ended: false });
    const second = await chat(widget.id, { message: "Blue", session_id: first.body.session_id }, SHOP, ip);
    expect(second.body).toEqual({ reply: "Blue it is. Goodbye Ada Lovelace!", session_id: first.body.session_id, ended: true });
    expect(second.headers.get("access-control-allow-origin")).toBe(SHOP);

    // The session row counts messages and keeps the visitor's address only as a keyed hash.
    const row = s.server.ctx.db.select().from(widgetSessions).where(eq(widgetSessions.id, first.body.session_id)).get()!;
    expect(row).toMatchObject({ widgetId: widget.id, workspaceId: s.user.workspaceId, messages: 2 });
    expect(row.visitor).toMatch(/^[0-9a-f]{64}$/);
    expect(row.visitor).not.toContain(ip);
    expect(row.expiresAt - row.createdAt).toBe(WIDGET_LIMITS.sessionLifetimeMs);
  });

  test("a website chat is no phone line: the agent's call greeting is not said (the playground still says it), a model is told so, and goodbye is a chat's", async () => {
    const speech = await s.server.api.post("/v1/providers", { name: "speech for the phone desk", kind: "openai-compatible", base_url: "https://models.example.com/v1" }, as());
    const flow = {
      start: "ask",
      nodes: {
        ask: { type: "ask", text: "What can I help you with?", slot: { name: "topic", type: "string" }, next: "answer" },
        answer: { type: "say", text: "You asked about {{topic}}.", next: "ask" },
      },
    };
    const desk = await s.server.api.post("/v1/agents", { name: "Phone desk", first_message: "Thank you for calling Acme.", brain: { type: "flow", flow }, transcriber: { provider_id: speech.body.id } }, as());
    expect(desk.status).toBe(201);
    const widget = await newWidget({ agent_id: desk.body.id, mode: "chat", look: { greeting: "Hi! Ask us anything." } });
    const ip = newVisitor();
    const first = await chat(widget.id, { message: "parking" }, SHOP, ip);
    // The flow's own question still opens the conversation; the phone greeting does not.
    expect(first.body).toMatchObject({ reply: "What can I help you with? You asked about parking. What can I help you with?", ended: false });
    const bye = await chat(widget.id, { message: "bye bye", session_id: first.body.session_id }, SHOP, ip);
    expect(bye.body).toMatchObject({ reply: "Thank you for chatting. Goodbye!", ended: true });
    // The playground rehearses a call: it greets as the phone line does, and says goodbye as one.
    const rehearsal = await s.server.api.post(`/v1/agents/${desk.body.id}/chat`, { message: "parking" }, as());
    expect(rehearsal.body.reply).toBe("Thank you for calling Acme. What can I help you with? You asked about parking. What can I help you with?");
    const rehearsalBye = await s.server.api.post(`/v1/agents/${desk.body.id}/chat`, { message: "bye bye", session_id: rehearsal.body.session_id }, as());
    expect(rehearsalBye.body.reply).toBe("Thank you for calling. Goodbye!");

    const model = startFakeOpenAI();
    try {
      model.script([{ text: ["We open at nine."] }]);
      const connection = await s.server.api.post("/v1/providers", { name: "chat model", kind: "openai-compatible", base_url: model.url }, as());
      const assistant = await s.server.api.post(
        "/v1/agents",
        { name: "Phone assistant", first_message: "Thank you for calling Acme.", system_prompt: "You answer Acme's phone.", brain: { type: "llm", provider_id: connection.body.id, model: "fake-chat" }, transcriber: { provider_id: speech.body.id } },
        as(),
      );
      expect(assistant.status).toBe(201);
      const llmWidget = await newWidget({ agent_id: assistant.body.id, mode: "chat" });
      const answer = await chat(llmWidget.id, { message: "When do you open?" }, SHOP, newVisitor());
      expect(answer.body.reply).toBe("We open at nine.");
      const sent = model.requests.find((r) => r.path === "/v1/chat/completions")!.body.messages;
      // No greeting in the model's history; after the agent's prompt, a line saying this is a website chat.
      expect(sent.map((m: { role: string }) => m.role)).toEqual(["system", "system", "user"]);
      expect(sent[0].content).toBe("You answer Acme's phone.");
      expect(sent[1].content).toContain("text chat on a website, not a phone call");
      expect(JSON.stringify(sent)).not.toContain("Thank you for calling");
    } finally {
      model.stop();
    }
  });

  test("message length: empty or over the limit after trimming is 422 naming message", async () => {
    const widget = await newWidget();
    const rows: [unknown, number, string | null][] = [
      [{ message: "" }, 422, "message"],
      [{ message: " \n\t " }, 422, "message"],
      [{ message: "x".repeat(WIDGET_LIMITS.messageChars + 1) }, 422, "message"],
      [{}, 422, "message"],
      [{ message: 5 }, 422, "message"],
      [{ message: "hi", session_id: "" }, 422, "session_id"],
      [{ message: "hi", extra: true }, 422, "extra"],
      [{ message: `  ${"x".repeat(WIDGET_LIMITS.messageChars)}  ` }, 200, null],
    ];
    for (const [body, status, field] of rows) {
      const res = await chat(widget.id, body, SHOP, newVisitor());
      expect(`${JSON.stringify(body).slice(0, 40)}: ${res.status}`).toBe(`${JSON.stringify(body).slice(0, 40)}: ${status}`);
      if (field) expect(fields(res)).toContain(field);
    }
    const long = await chat(widget.id, { message: "x".repeat(2500) });
    expect(long.body.errors).toEqual([{ field: "message", message: "is 2500 characters long; the most allowed is 2000" }]);
  });

  test(`a session takes ${WIDGET_LIMITS.messagesPerSession} messages, then 409 saying so`, async () => {
    const widget = await newWidget();
    const ip = newVisitor();
    const opened = await chat(widget.id, { message: "Ada" }, SHOP, ip);
    const session = opened.body.session_id;
    for (let i = 2; i <= WIDGET_LIMITS.messagesPerSession; i++) {
      const res = await chat(widget.id, { message: `message ${i}`, session_id: session }, SHOP, ip);
      expect(res.status).toBe(200);
    }
    const over = await chat(widget.id, { message: "one more", session_id: session }, SHOP, ip);
    expect(over.status).toBe(409);
    expect(over.body.code).toBe("invalid_state");
    expect(over.body.detail).toContain(`limit of ${WIDGET_LIMITS.messagesPerSession} messages`);
    // A new session is the way on.
    expect((await chat(widget.id, { message: "Ada" }, SHOP, ip)).status).toBe(200);
  });

  test(`a visitor opens at most ${WIDGET_LIMITS.newSessionsPerVisitor} sessions per hour on a widget, then 429 with Retry-After`, async () => {
    const widget = await newWidget();
    const other = await newWidget();
    const ip = newVisitor();
    for (let i = 0; i < WIDGET_LIMITS.newSessionsPerVisitor; i++) expect((await chat(widget.id, { message: "Ada" }, SHOP, ip)).status).toBe(200);
    s.server.clock.advance(10 * 60_000);
    const limited = await chat(widget.id, { message: "Ada" }, SHOP, ip);
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(limited.body.detail).toContain(`${WIDGET_LIMITS.newSessionsPerVisitor} chat sessions`);
    expect(Number(limited.headers.get("retry-after"))).toBe(50 * 60);
    expect(limited.headers.get("access-control-allow-origin")).toBe(SHOP);
    // Other visitors, and the same visitor on another widget, are not affected; existing sessions go on.
    expect((await chat(widget.id, { message: "Ada" }, SHOP, newVisitor())).status).toBe(200);
    expect((await chat(other.id, { message: "Ada" }, SHOP, ip)).status).toBe(200);
    const sessions = s.server.ctx.db.select().from(widgetSessions).where(eq(widgetSessions.widgetId, widget.id)).all();
    const mine = sessions.find((row) => row.visitor === sessions[0].visitor)!;
    expect((await chat(widget.id, { message: "Blue", session_id: mine.id }, SHOP, ip)).status).toBe(200);
    // An hour after the first ones, new sessions are allowed again.
    s.server.clock.advance(50 * 60_000);
    expect((await chat(widget.id, { message: "Ada" }, SHOP, ip)).status).toBe(200);
  });

  test("a session of another widget, or an unknown one, is 404; a voice-only widget takes no chat", async () => {
    const one = await newWidget();
    const two = await newWidget();
    const opened = await chat(one.id, { message: "Ada" });
    const foreign = await chat(two.id, { message: "Blue", session_id: opened.body.session_id });
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe("not_found");
    expect((await chat(one.id, { message: "Blue", session_id: "cht_doesnotexist" })).status).toBe(404);
    // A session that has expired is gone too.
    const later = await chat(one.id, { message: "Ada" });
    s.server.clock.advance(WIDGET_LIMITS.sessionLifetimeMs + 1000);
    expect((await chat(one.id, { message: "Blue", session_id: later.body.session_id })).status).toBe(404);
    const voiceOnly = await newWidget({ mode: "voice" });
    const refused = await chat(voiceOnly.id, { message: "hello" });
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("voice only");
  });
});

describe("voice token", () => {
  test("refused for a chat-only widget and a page not allowed; 201 for an allowed one, bound to its origin", async () => {
    const chatOnly = await newWidget({ mode: "chat" });
    const refused = await s.server.api.post(`/v1/widgets/${chatOnly.id}/voice-token`, {}, page(SHOP));
    expect(refused.status).toBe(409);
    expect(refused.body.detail).toContain("chat only");

    const widget = await newWidget({ mode: "both" });
    const evil = await s.server.api.post(`/v1/widgets/${widget.id}/voice-token`, {}, page("https://evil.example.net"));
    expect(evil.status).toBe(403);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();

    const res = await s.server.api.post(`/v1/widgets/${widget.id}/voice-token`, {}, page(SHOP));
    expect(res.status).toBe(201);
    expect(res.headers.get("access-control-allow-origin")).toBe(SHOP);
    expect(res.body).toMatchObject({ token: expect.any(String), expires_in: expect.any(Number) });
    expect(res.body.url).toStartWith(`${s.server.url.replace(/^http/, "ws")}/v1/realtime/session?token=`);
    const rows = s.server.ctx.db.select().from(realtimeTokens).where(eq(realtimeTokens.widgetId, widget.id)).all();
    expect(rows).toHaveLength(1);
    expect(rows[0].metadata).toMatchObject({ origin: SHOP, widget_id: widget.id });
    // Without a body at all, too (the page need not send one).
    expect((await s.server.api.post(`/v1/widgets/${widget.id}/voice-token`, undefined, page(SHOP))).status).toBe(201);
  });
});

describe("a deleted widget", () => {
  test("every public route answers 404 at once", async () => {
    const widget = await newWidget();
    const opened = await chat(widget.id, { message: "Ada" });
    const script = await fetch(`${s.server.url}/v1/widgets/${widget.id}/embed.js`);
    const etag = script.headers.get("etag")!;
    expect((await s.server.api.get(`/v1/widgets/${widget.id}/config`, page(SHOP))).status).toBe(200);
    expect((await s.server.api.delete(`/v1/widgets/${widget.id}`, as())).status).toBe(204);
    const answers = [
      await s.server.api.get(`/v1/widgets/${widget.id}/config`, page(SHOP)),
      await s.server.api.get(`/v1/widgets/${widget.id}/embed.js`),
      await s.server.api.get(`/v1/widgets/${widget.id}/embed.js`, { headers: { "if-none-match": etag } }),
      await s.server.api.get(`/v1/widgets/${widget.id}/preview`),
      await chat(widget.id, { message: "Blue", session_id: opened.body.session_id }),
      await chat(widget.id, { message: "Ada" }),
      await s.server.api.post(`/v1/widgets/${widget.id}/voice-token`, {}, page(SHOP)),
      await s.server.api.request("OPTIONS", `/v1/widgets/${widget.id}/chat`, undefined, page(SHOP)),
    ];
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe("not_found");
      expect(res.headers.get("access-control-allow-origin")).toBeNull();
    }
    // Its visitors' sessions went with it.
    expect(s.server.ctx.db.select().from(widgetSessions).where(eq(widgetSessions.widgetId, widget.id)).all()).toEqual([]);
  });
});

describe("public rate limit", () => {
  test("widget routes count against the per-IP public limit: 429 with Retry-After, still readable by an allowed page", async () => {
    const server = await startTestServer({ settings: { publicRateLimitPerMinute: "5", trustedProxies: "127.0.0.1" } });
    try {
      const user = await registerUser(server.api, "widgets-limited");
      const agent = await server.api.post("/v1/agents", { name: "Limited" }, { token: user.token });
      const widget = await server.api.post("/v1/widgets", { agent_id: agent.body.id, name: "Limited", allowed_origins: [SHOP] }, { token: user.token });
      const headers = { origin: SHOP, "x-forwarded-for": "192.0.2.50" };
      const calls = [
        () => server.api.get(`/v1/widgets/${widget.body.id}/config`, { headers }),
        () => server.api.get(`/v1/widgets/${widget.body.id}/embed.js`, { headers }),
        () => server.api.get(`/v1/widgets/${widget.body.id}/preview`, { headers }),
        () => server.api.post(`/v1/widgets/${widget.body.id}/chat`, { message: "hello" }, { headers }),
        () => server.api.request("OPTIONS", `/v1/widgets/${widget.body.id}/chat`, undefined, { headers }),
      ];
      for (const [i, call] of calls.entries()) {
        const res = await call();
        expect(res.status).toBeLessThan(300);
        expect(res.headers.get("ratelimit-limit")).toBe("5");
        expect(res.headers.get("ratelimit-remaining")).toBe(String(4 - i));
      }
      const limited = await server.api.post(`/v1/widgets/${widget.body.id}/chat`, { message: "hello" }, { headers });
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe("rate_limited");
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(limited.headers.get("access-control-allow-origin")).toBe(SHOP);
      // Another visitor is unaffected.
      expect((await server.api.get(`/v1/widgets/${widget.body.id}/config`, { headers: { ...headers, "x-forwarded-for": "192.0.2.51" } })).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});

// CORS and CSP are enforced by browsers, so a browser has the last word on them.
describe.if(chromiumAvailable())("in a real browser", () => {
  test("the widget works on an allowed page and on the preview page (under its CSP); another origin's page gets nothing", async () => {
    let widgetId = "";
    const shop = hostPages((path) =>
      path === "/" ? { body: `<!doctype html><title>Shop</title><h1>Shop</h1><script src="${s.server.url}/v1/widgets/${widgetId}/embed.js" async></script>` } : null,
    );
    const widget = await newWidget({ mode: "chat", allowed_origins: [shop.origin], look: { greeting: "Hi!", primary_color: "#ff0000" } });
    widgetId = widget.id;
    const browser = await launchChromium();
    try {
      const visit = async (url: string) => {
        const tab = await browser.newPage();
        const problems: string[] = [];
        tab.on("console", (message) => /Content Security Policy|CORS/.test(message.text()) && problems.push(message.text()));
        await tab.goto(url);
        const rendered = await tab.waitForSelector("parley-widget", { state: "attached", timeout: 3000 }).then(() => true, () => false);
        let said: string[] = [];
        let launcher = "";
        if (rendered) {
          await tab.locator("parley-widget button.l").click();
          await tab.locator("parley-widget input.i").fill("Ada");
          await tab.locator("parley-widget button.s").click();
          // Playwright's CSS locators pierce the widget's (open) shadow root.
          // The reply replaces a "…" placeholder: wait for the answer itself (a loaded box takes a moment).
          await tab.locator("parley-widget .m.a", { hasNotText: "…" }).nth(1).waitFor({ timeout: 10_000 });
          said = await tab.locator("parley-widget .m").allTextContents();
          // (No DOM types in this project: the page's globals are reached through globalThis.)
          launcher = await tab.locator("parley-widget button.l").evaluate((button) => (globalThis as any).getComputedStyle(button).backgroundColor as string);
        }
        await tab.close();
        return { rendered, said, launcher, problems };
      };
      for (const url of [`${shop.origin}/`, widget.embed.preview_url]) {
        const seen = await visit(url);
        expect(seen).toEqual({ rendered: true, said: ["Hi!", "Ada", "What is your name? Nice to meet you, Ada. Your favourite colour?"], launcher: "rgb(255, 0, 0)", problems: [] });
      }
      // The same page served from another origin (localhost is not 127.0.0.1): the browser blocks the config.
      const elsewhere = await visit(`${shop.origin.replace("127.0.0.1", "localhost")}/`);
      expect(elsewhere.rendered).toBe(false);
      expect(elsewhere.problems.join(" ")).toContain("Access-Control-Allow-Origin");
    } finally {
      await browser.close();
      shop.stop();
    }
  }, 30_000);
});
