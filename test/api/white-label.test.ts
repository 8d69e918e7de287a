// White-label (143-147): a reseller's brand with every field checked, uploaded logos served by hash,
// custom CSS sanitised, custom domains proven against a real DNS server on loopback (or at once where the
// operator skips the check), public branding per domain, and what a request's Host picks: the OpenAPI
// title, links in answers, and (where the operator allows it) the prefix of new API keys.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildConfig, ConfigError } from "../../src/config/config.ts";
import { sanitizeCss } from "../../src/modules/white-label/css.ts";
import { startDnsServer } from "../helpers/dns-server.ts";
import { createKey, registerOperator, registerUser, serverWithUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const dns = await startDnsServer();
afterAll(() => dns.stop());
const s = serverWithUser("reseller", { settings: { dnsServers: dns.address, whiteLabelKeyPrefixes: "true" } });
let key: string;
beforeAll(async () => {
  key = (await createKey(s.server.api, s.user.token, "admin")).secret;
});
const as = (host?: string) => ({ token: key, ...(host ? { headers: { host } } : {}) });
const fields = (res: { body: any }) => (res.body?.errors ?? []).map((e: { field: string }) => e.field);

/** A 1×1 PNG, and a JPEG's first bytes. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01]);
const upload = (bytes: Buffer, content_type = "image/png") => ({ content_type, data_base64: bytes.toString("base64") });

const BRAND = {
  product_name: "Acme Voice",
  colors: { primary: "#FF6600", accent: "#222222", background: "#fafafa", text: "#101010" },
  support_email: "help@acme.example",
  custom_css: ".header { color: #ff6600; }",
  email_sender_name: "Acme Support",
  key_prefix_slug: "acme",
};

describe("the brand", () => {
  test("starts empty", async () => {
    const res = await s.server.api.get("/v1/white-label", as());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: "white_label",
      product_name: null,
      logo_url: null,
      logo: null,
      colors: {},
      support_email: null,
      custom_css: null,
      email_sender_name: null,
      key_prefix_slug: null,
      key_prefixes_enabled: true,
      domains: [],
      updated_at: null,
    });
  });

  test("PUT sets the whole brand with an uploaded logo; GET reads it back; the logo is public, typed and cached by hash", async () => {
    const put = await s.server.api.put("/v1/white-label", { ...BRAND, logo: upload(PNG) }, as());
    expect(put.status).toBe(200);
    const sha = new Bun.CryptoHasher("sha256").update(PNG).digest("hex");
    expect(put.body).toMatchObject({
      ...BRAND,
      colors: { primary: "#ff6600", accent: "#222222", background: "#fafafa", text: "#101010" },
      logo_url: `${s.server.url}/v1/branding/logos/${sha}.png`,
      logo: { content_type: "image/png", sha256: sha, url: `${s.server.url}/v1/branding/logos/${sha}.png` },
    });
    expect((await s.server.api.get("/v1/white-label", as())).body).toEqual(put.body);

    const logo = await fetch(put.body.logo_url); // no credentials
    expect(logo.status).toBe(200);
    expect(logo.headers.get("content-type")).toBe("image/png");
    expect(logo.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(logo.headers.get("x-content-type-options")).toBe("nosniff");
    expect(Buffer.from(await logo.arrayBuffer()).equals(PNG)).toBe(true);
    const again = await fetch(put.body.logo_url, { headers: { "if-none-match": logo.headers.get("etag")! } });
    expect(again.status).toBe(304);
    expect((await fetch(`${s.server.url}/v1/branding/logos/${sha}.gif`)).status).toBe(404);
    expect((await fetch(`${s.server.url}/v1/branding/logos/${"0".repeat(64)}.png`)).status).toBe(404);
  });

  test("PUT replaces everything: sending GET's logo_url back keeps the upload, leaving a field out clears it", async () => {
    const current = (await s.server.api.get("/v1/white-label", as())).body;
    const kept = await s.server.api.put("/v1/white-label", { ...BRAND, logo_url: current.logo_url }, as());
    expect(kept.status).toBe(200);
    expect(kept.body.logo).toEqual(current.logo);

    const external = await s.server.api.put("/v1/white-label", { product_name: "Acme Voice", logo_url: "https://cdn.acme.example/logo.png" }, as());
    expect(external.status).toBe(200);
    expect(external.body).toMatchObject({ product_name: "Acme Voice", logo_url: "https://cdn.acme.example/logo.png", logo: null, colors: {}, support_email: null, custom_css: null, key_prefix_slug: null });
    expect((await fetch(current.logo_url)).status).toBe(404); // the replaced upload is gone
  });

  test("every bad field is named", async () => {
    const schema = await s.server.api.put("/v1/white-label", { colors: { primary: "red", ink: "#000000" }, support_email: "not an e-mail", key_prefix_slug: "Bad Slug" }, as());
    expect(schema.status).toBe(422);
    expect(fields(schema)).toEqual(expect.arrayContaining(["colors.primary", "support_email", "key_prefix_slug"]));

    const checks = await s.server.api.put("/v1/white-label", { product_name: "  ", logo_url: "http://cdn.acme.example/logo.png", email_sender_name: "Acme\r\nBcc: victim@example.com", custom_css: "a{}".repeat(7000) }, as());
    expect(checks.status).toBe(422);
    expect(fields(checks).sort()).toEqual(["custom_css", "email_sender_name", "logo_url", "product_name"]);

    const both = await s.server.api.put("/v1/white-label", { logo_url: "https://cdn.acme.example/logo.png", logo: upload(PNG) }, as());
    expect(fields(both)).toEqual(["logo"]);
  });

  test("a logo must be an image of the type it claims, never SVG, within 256 KB", async () => {
    const text = await s.server.api.put("/v1/white-label", { logo: upload(Buffer.from("<html><script>alert(1)</script></html>")) }, as());
    expect(`${text.status} ${fields(text)}`).toBe("422 logo.data_base64");
    const mislabelled = await s.server.api.put("/v1/white-label", { logo: upload(JPEG, "image/png") }, as());
    expect(`${mislabelled.status} ${fields(mislabelled)}`).toBe("422 logo.content_type");
    const svg = await s.server.api.put("/v1/white-label", { logo: upload(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'), "image/svg+xml") }, as());
    expect(`${svg.status} ${fields(svg)}`).toBe("422 logo.content_type");
    expect(svg.body.detail).toContain("SVG");
    const huge = await s.server.api.put("/v1/white-label", { logo: upload(Buffer.concat([PNG, Buffer.alloc(300 * 1024)])) }, as());
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe("payload_too_large");
    expect(fields(huge)).toEqual(["logo.data_base64"]);
    const garbage = await s.server.api.put("/v1/white-label", { logo: { content_type: "image/png", data_base64: "not base64!" } }, as());
    expect(fields(garbage)).toEqual(["logo.data_base64"]);
  });

  test("custom CSS is stored sanitised", async () => {
    const hostile = [
      "@import url(https://evil.example/x.css);",
      ".a { background: url(https://evil.example/track.png) no-repeat; }",
      ".b { background: url('data:image/png;base64,iVBORw0KGgo=') }",
      ".c { width: expression(alert(1)); }",
      ".d { behavior: url(evil.htc); color: red; }",
      ".e { -moz-binding: url(evil.xml#x); }",
      ".f { background: url(javascript:alert(1)); }",
      "</style><script>alert(1)</script>",
    ].join("\n");
    const res = await s.server.api.put("/v1/white-label", { custom_css: hostile }, as());
    expect(res.status).toBe(200);
    const css: string = res.body.custom_css;
    for (const bad of ["@import", "evil.example", "expression(", "behavior", "-moz-binding", "javascript:", "</style", "<"]) expect(css.toLowerCase()).not.toContain(bad);
    expect(css).toContain("url('data:image/png;base64,iVBORw0KGgo=')");
    expect(css).toContain("color: red;");
    expect(css).toContain(".a { background: none no-repeat; }");
  });
});

describe("the CSS sanitiser", () => {
  const cases: [string, string][] = [
    ["escaped letters", "a { width: \\65 xpression(alert(1)) }"],
    ["escaped url", "a { background: \\75 rl(https://evil.example/x) }"],
    ["escaped hyphen", "a { \\2d moz-binding: url(x.xml) }"],
    ["comments splitting a keyword", "a { width: ex/**/pression(alert(1)) }"],
    ["nested removal", "a { width: expexpression(ression(alert(1)) }"],
    ["import in a string", '@import "https://evil.example/x.css";'],
    ["image-set", 'a { background-image: image-set("https://evil.example/a.png" 1x) }'],
    ["webkit image-set", 'a { background-image: -webkit-image-set("https://evil.example/a.png" 1x) }'],
    ["vbscript", "a { background: url(vbscript:msgbox(1)) }"],
    ["unclosed url", "a { background: url(https://evil.example/x"],
    ["svg data url", "a { background: url(data:image/svg+xml,<svg onload=alert(1)>) }"],
    ["upper case", "A { BACKGROUND: URL(HTTPS://EVIL.EXAMPLE/X); WIDTH: EXPRESSION(1) }"],
    ["NUL inside a keyword", "a { width: expr\u0000ession(1) }"],
  ];
  for (const [name, input] of cases) {
    test(name, () => {
      const out = sanitizeCss(input).toLowerCase();
      for (const bad of ["expression(", "evil.example", "-moz-binding", "@import", "vbscript", "<", "svg"]) expect(out).not.toContain(bad);
      expect(out).not.toMatch(/url\((?!\s*['"]?data:image\/(png|jpeg|gif|webp|avif))/);
    });
  }

  test("leaves ordinary CSS alone", () => {
    const css = '.btn > span:hover { color: #fff; content: "\\201C"; background: linear-gradient(#fff, #000); }\n@media (max-width: 600px) { .a { margin: 0 } }';
    expect(sanitizeCss(css)).toBe(css);
  });
});

const DOMAIN = "brand.example.com";
const RECORD = `_parley-verify.${DOMAIN}`;

describe("custom domains", () => {
  let other: RegisteredUser;
  beforeAll(async () => {
    other = await registerUser(s.server.api, "other-reseller");
    const put = await s.server.api.put("/v1/white-label", { ...BRAND, logo: upload(PNG) }, as());
    expect(put.status).toBe(200);
  });

  test("attach: normalised, pending, with the TXT record to create; attaching again answers the same domain", async () => {
    const res = await s.server.api.post("/v1/white-label/domains", { domain: "HTTPS://Brand.Example.com:443/login" }, as());
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: "brand_domain", domain: DOMAIN, status: "pending", verification: { type: "TXT", name: RECORD }, verified_at: null, verified_by: null });
    expect(res.body.verification.value).toMatch(/^parley-verify-[A-Za-z0-9]{32}$/);
    const again = await s.server.api.post("/v1/white-label/domains", { domain: DOMAIN }, as());
    expect(again.status).toBe(200);
    expect(again.body).toEqual(res.body);
    expect((await s.server.api.get("/v1/white-label", as())).body.domains).toEqual([res.body]);
  });

  test("bad names are refused on domain", async () => {
    for (const domain of ["localhost", "127.0.0.1", "[::1]", "not a domain", "-x.example.com", "example.123"]) {
      const res = await s.server.api.post("/v1/white-label/domains", { domain }, as());
      expect(`${domain} ${res.status} ${fields(res)}`).toBe(`${domain} 422 domain`);
    }
  });

  test("a pending domain picks no brand", async () => {
    const branding = await s.server.api.get(`/v1/branding/${DOMAIN}`);
    expect(branding.body).toMatchObject({ source: "instance", product_name: "Parley" });
    const doc = await s.server.api.get("/openapi.json", { headers: { host: DOMAIN } });
    expect(doc.body.info.title).toBe("Parley API");
  });

  test("verify asks DNS: no record and a wrong record are refused with what was found; the right one verifies", async () => {
    const missing = await s.server.api.post(`/v1/white-label/domains/${DOMAIN}/verify`, undefined, as());
    expect(`${missing.status} ${missing.body.code}`).toBe("409 domain_not_verified");
    expect(missing.body.detail).toContain(`no TXT record there`);
    expect(dns.questions).toContain(`${RECORD} 16`);

    const token = (await s.server.api.get("/v1/white-label", as())).body.domains[0].verification.value;
    dns.txt.set(RECORD, ["v=spf1 -all", "parley-verify-somebody-else"]);
    const wrong = await s.server.api.post(`/v1/white-label/domains/${DOMAIN}/verify`, undefined, as());
    expect(`${wrong.status} ${wrong.body.code}`).toBe("409 domain_not_verified");
    expect(wrong.body.detail).toContain('"parley-verify-somebody-else"');
    const pending = (await s.server.api.get("/v1/white-label", as())).body.domains[0];
    expect(pending).toMatchObject({ status: "pending", last_error: expect.stringContaining("none of them the token") });
    expect(pending.last_checked_at).not.toBeNull();

    dns.txt.set(RECORD, ["v=spf1 -all", token]);
    const verified = await s.server.api.post(`/v1/white-label/domains/${DOMAIN}/verify`, undefined, as());
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({ domain: DOMAIN, status: "verified", verified_by: "dns", last_error: null });
    expect(verified.body.verified_at).not.toBeNull();
  });

  test("GET /v1/branding/{domain}: the brand of a verified domain, the instance default for others, nothing private", async () => {
    const res = await s.server.api.get(`/v1/branding/${DOMAIN.toUpperCase()}`);
    expect(res.status).toBe(200);
    const sha = new Bun.CryptoHasher("sha256").update(PNG).digest("hex");
    expect(res.body).toEqual({
      object: "branding",
      domain: DOMAIN,
      source: "domain",
      product_name: "Acme Voice",
      logo_url: `${s.server.url}/v1/branding/logos/${sha}.png`,
      colors: { primary: "#ff6600", accent: "#222222", background: "#fafafa", text: "#101010" },
      support_email: "help@acme.example",
      custom_css: ".header { color: #ff6600; }",
      email_sender_name: "Acme Support",
    });
    expect(res.text).not.toContain(s.user.workspaceId);
    expect(res.text).not.toContain("parley-verify");
    for (const unknown of ["unknown.example.org", "not a domain", "localhost"]) {
      const fallback = await s.server.api.get(`/v1/branding/${encodeURIComponent(unknown)}`);
      expect(fallback.status).toBe(200);
      expect(fallback.body).toMatchObject({
        source: "instance",
        product_name: "Parley",
        logo_url: null,
        colors: { primary: "#2563eb", accent: "#7c3aed", background: "#ffffff", text: "#111827" },
        support_email: null,
        custom_css: null,
        email_sender_name: "Parley",
      });
    }
  });

  test("Host picks the brand: the OpenAPI title and the links in answers", async () => {
    const branded = await s.server.api.get("/openapi.json", { headers: { host: DOMAIN } });
    expect(branded.body.info.title).toBe("Acme Voice API");
    expect(branded.body.servers).toEqual([{ url: `https://${DOMAIN}` }]);
    expect(branded.body.components.securitySchemes.bearerAuth.description).toContain("sk_acme_live_");
    const plain = await s.server.api.get("/openapi.json");
    expect(plain.body.info.title).toBe("Parley API");
    expect(plain.body.servers).toEqual([{ url: s.server.url }]);
    expect((await s.server.api.get("/v1/openapi.json", { headers: { host: `${DOMAIN.toUpperCase()}:443` } })).body.info.title).toBe("Acme Voice API");

    const brand = await s.server.api.get("/v1/white-label", as(DOMAIN));
    expect(brand.body.logo_url).toStartWith(`https://${DOMAIN}/v1/branding/logos/`);
    const agent = await s.server.api.post("/v1/agents", { name: "Front desk" }, as());
    const widget = await s.server.api.post("/v1/widgets", { agent_id: agent.body.id, name: "Shop" }, as(DOMAIN));
    expect(widget.status).toBe(201);
    expect(widget.body.embed.script_url).toBe(`https://${DOMAIN}/v1/widgets/${widget.body.id}/embed.js`);
    expect(widget.body.embed.snippet).toContain(`https://${DOMAIN}/`);
    expect(widget.body.embed.preview_url).toBe(`${s.server.url}/v1/widgets/${widget.body.id}/preview`);
    expect((await s.server.api.get(`/v1/widgets/${widget.body.id}`, as())).body.embed.script_url).toStartWith(s.server.url);
    const voice = await s.server.api.post("/v1/realtime/token", { agent_id: agent.body.id }, as(DOMAIN));
    expect(voice.status).toBe(201);
    expect(voice.body.url).toStartWith(`wss://${DOMAIN}/v1/realtime/session?token=`);
    expect((await s.server.api.post("/v1/realtime/token", { agent_id: agent.body.id }, as())).body.url).toStartWith(`${s.server.url.replace(/^http/, "ws")}/v1/realtime/session?token=`);
  });

  test("a key created on the branded host carries the brand's slug, and works on any host", async () => {
    const branded = await s.server.api.post("/v1/api-keys", { name: "reseller key", scope: "admin" }, { token: s.user.token, headers: { host: DOMAIN } });
    expect(branded.status).toBe(201);
    expect(branded.body.key).toMatch(/^sk_acme_live_[A-Za-z0-9]{40}$/);
    expect(branded.body.prefix).toBe("sk_acme_live_");
    for (const host of [undefined, DOMAIN]) {
      const res = await s.server.api.get("/v1/white-label", { token: branded.body.key, ...(host ? { headers: { host } } : {}) });
      expect(res.status).toBe(200);
    }
    const plain = await s.server.api.post("/v1/api-keys", { name: "plain key", scope: "read-only" }, { token: s.user.token });
    expect(plain.body.key).toStartWith("sk_parley_live_");
  });

  test("another workspace cannot take, verify or detach the domain", async () => {
    const taken = await s.server.api.post("/v1/white-label/domains", { domain: DOMAIN }, { token: other.token });
    expect(`${taken.status} ${taken.body.code}`).toBe("409 conflict");
    expect(taken.text).not.toContain(s.user.workspaceId);
    for (const [method, path] of [["POST", `/v1/white-label/domains/${DOMAIN}/verify`], ["DELETE", `/v1/white-label/domains/${DOMAIN}`]]) {
      const res = await s.server.api.request(method, path, undefined, { token: other.token });
      expect(`${res.status} ${res.body.code}`).toBe("404 not_found");
    }
    expect((await s.server.api.get("/v1/white-label", { token: other.token })).body.domains).toEqual([]);
    expect((await s.server.api.get(`/v1/branding/${DOMAIN}`)).body.source).toBe("domain");
  });

  test("detach: the domain falls back to the instance's brand at once", async () => {
    const res = await s.server.api.delete(`/v1/white-label/domains/${DOMAIN}`, as());
    expect(res.status).toBe(204);
    expect((await s.server.api.get(`/v1/branding/${DOMAIN}`)).body).toMatchObject({ source: "instance", product_name: "Parley" });
    expect((await s.server.api.get("/openapi.json", { headers: { host: DOMAIN } })).body.info.title).toBe("Parley API");
    const key = await s.server.api.post("/v1/api-keys", { name: "after detach", scope: "read-only" }, { token: s.user.token, headers: { host: DOMAIN } });
    expect(key.body.key).toStartWith("sk_parley_live_");
    expect((await s.server.api.delete(`/v1/white-label/domains/${DOMAIN}`, as())).status).toBe(404);
    // Free again: another workspace may now attach it.
    expect((await s.server.api.post("/v1/white-label/domains", { domain: DOMAIN }, { token: other.token })).status).toBe(201);
  });

  test("the instance default is the operator's brand once the operator sets one", async () => {
    const operator = await registerOperator(s.server);
    const put = await s.server.api.put("/v1/white-label", { product_name: "Reseller Cloud", colors: { primary: "#00aa00" } }, { token: operator.token });
    expect(put.status).toBe(200);
    const res = await s.server.api.get("/v1/branding/unknown.example.org");
    expect(res.body).toMatchObject({ source: "instance", product_name: "Reseller Cloud", colors: { primary: "#00aa00", accent: "#7c3aed" }, email_sender_name: "Reseller Cloud" });
    expect((await s.server.api.get("/openapi.json")).body.info.title).toBe("Reseller Cloud API");
  });
});

describe("an air-gapped instance (--domain-verification skip) that keeps its own key prefixes", () => {
  let server: TestServer;
  let owner: RegisteredUser;
  beforeAll(async () => {
    server = await startTestServer({ settings: { domainVerification: "skip", publicUrl: "https://voice.example.net" } });
    owner = await registerUser(server.api, "air-gapped");
  });
  afterAll(() => server.stop());

  test("a domain is verified at once by the operator's setting; keys keep the instance's prefix; the instance's own host is refused", async () => {
    const put = await server.api.put("/v1/white-label", { product_name: "Closed Co", key_prefix_slug: "closed" }, { token: owner.token });
    expect(put.body.key_prefixes_enabled).toBe(false);
    const attached = await server.api.post("/v1/white-label/domains", { domain: "voice.closed.example" }, { token: owner.token });
    expect(attached.status).toBe(201);
    expect(attached.body).toMatchObject({ status: "verified", verified_by: "operator" });
    expect((await server.api.get("/v1/branding/voice.closed.example")).body).toMatchObject({ source: "domain", product_name: "Closed Co" });
    const key = await server.api.post("/v1/api-keys", { name: "k", scope: "admin" }, { token: owner.token, headers: { host: "voice.closed.example" } });
    expect(key.body.key).toStartWith("sk_parley_live_");
    const doc = await server.api.get("/openapi.json", { headers: { host: "voice.closed.example" } });
    expect(doc.body.info.title).toBe("Closed Co API");
    expect(doc.body.components.securitySchemes.bearerAuth.description).toContain("sk_parley_live_");
    const own = await server.api.post("/v1/white-label/domains", { domain: "https://voice.example.net" }, { token: owner.token });
    expect(`${own.status} ${fields(own)}`).toBe("422 domain");
  });
});

describe("settings", () => {
  test("--dns-servers takes IP addresses with optional ports; --domain-verification dns or skip", () => {
    const config = buildConfig({ dnsServers: "10.0.0.2, 10.0.0.3:5353,[::1]:53,::1", domainVerification: "skip", whiteLabelKeyPrefixes: "yes" });
    expect(config).toMatchObject({ dnsServers: ["10.0.0.2", "10.0.0.3:5353", "[::1]:53", "::1"], domainVerification: "skip", whiteLabelKeyPrefixes: true });
    expect(buildConfig({})).toMatchObject({ dnsServers: [], domainVerification: "dns", whiteLabelKeyPrefixes: false });
    for (const dnsServers of ["dns.example.com", "10.0.0.2:0", "10.0.0.2:70000", "[::1]"]) expect(() => buildConfig({ dnsServers })).toThrow(ConfigError);
    expect(() => buildConfig({ domainVerification: "maybe" })).toThrow("--domain-verification must be dns or skip");
  });
});
