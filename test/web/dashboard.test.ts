// The dashboard as the server serves it: its page at / and at every path the app draws (those e-mails link
// to included), under a strict CSP; its script and stylesheet by content hash, cached for good, gzipped,
// revalidated; and nothing of the API shadowed. Under the path of --dashboard-url too.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ASSET_PREFIX, PAGES } from "../../src/dashboard/paths.ts";
import { DASHBOARD_CSP } from "../../src/web/dashboard/routes.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let server: TestServer;
let prefixed: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  prefixed = await startTestServer({ settings: { dashboardUrl: "https://example.com/console" } });
});
afterAll(async () => {
  await server?.stop();
  await prefixed?.stop();
});

const get = (base: string, path: string, headers: Record<string, string> = {}) => fetch(base + path, { headers });

async function shell(base: string, path: string) {
  const res = await get(base, path);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CSP);
  expect(res.headers.get("cache-control")).toBe("no-cache");
  const html = await res.text();
  const script = /<script type="module" src="([^"]+)"><\/script>/.exec(html)![1];
  const style = /<link rel="stylesheet" href="([^"]+)">/.exec(html)![1];
  return { html, script, style };
}

describe("the page", () => {
  test.each(["/", "/login", "/signup", "/keys", "/audit-log", "/sessions", "/reset-password?token=abc", "/invitations/inv_token123", "/newsletter/confirm?token=x", "/newsletter/unsubscribe?token=y"])("%s answers the app's HTML page", async (path) => {
    const { html, script, style } = await shell(server.url, path);
    expect(script).toMatch(/^\/dashboard\/assets\/main-\w+\.js$/);
    expect(style).toMatch(/^\/dashboard\/assets\/styles-\w+\.css$/);
    expect(html).not.toMatch(/<script>|<style>| style=|https?:\/\//); // nothing inline, nothing from elsewhere
    expect(html).toContain("<title>Parley</title>");
  });

  test("every path the app draws is served, including those the e-mail links use", () => {
    expect(Object.values(PAGES)).toEqual(expect.arrayContaining(["/reset-password", "/invitations/:token", "/newsletter/confirm", "/newsletter/unsubscribe"]));
  });

  test("the CSP allows no inline script or style and nothing from other origins but images", () => {
    expect(DASHBOARD_CSP).toContain("default-src 'none'");
    expect(DASHBOARD_CSP).toContain("script-src 'self'");
    expect(DASHBOARD_CSP).toContain("style-src 'self'");
    expect(DASHBOARD_CSP).not.toContain("unsafe");
    // Frames: only this server's own pages (a widget's preview); the dashboard itself is never framed.
    expect(DASHBOARD_CSP).toContain("frame-src 'self';");
    expect(DASHBOARD_CSP).toContain("frame-ancestors 'none'");
  });

  test("leaves other paths to the API: unknown ones are still problem+json 404s, the API answers as before", async () => {
    const unknown = await get(server.url, "/no-such-page");
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("content-type")).toContain("application/problem+json");
    expect((await get(server.url, "/v1/health")).headers.get("content-type")).toContain("application/json");
    expect((await get(server.url, "/openapi.json")).status).toBe(200);
    expect((await get(server.url, "/assets/voice-client.js")).status).toBe(200);
    const openapi = (await (await get(server.url, "/openapi.json")).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths).some((path) => !path.startsWith("/v1/"))).toBe(false);
  });
});

describe("the assets", () => {
  test("are named by content, cached for good, gzipped for clients that take it, and revalidated by ETag", async () => {
    const { script, style } = await shell(server.url, "/");
    const js = await get(server.url, script, { "accept-encoding": "gzip" });
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(js.headers.get("content-encoding")).toBe("gzip");
    const body = await js.text(); // fetch decodes it
    expect(body.length).toBeGreaterThan(1000);
    const etag = js.headers.get("etag")!;
    expect((await get(server.url, script, { "if-none-match": etag })).status).toBe(304);
    const css = await get(server.url, style);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(await css.text()).toContain("--primary");
    const missing = await get(server.url, `${ASSET_PREFIX}main-00000000.js`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get("content-type")).toContain("application/problem+json");
  });

  test("the script stays far under the 250 KB gzipped budget", async () => {
    const { script } = await shell(server.url, "/");
    const raw = await (await get(server.url, script)).text();
    expect(Bun.gzipSync(raw).byteLength).toBeLessThan(250 * 1024);
  });
});

describe("under the path of --dashboard-url", () => {
  test("the page and its assets are served there as well as at the root, with links under that path", async () => {
    const { html, script } = await shell(prefixed.url, "/console/reset-password?token=abc");
    expect(html).toContain('<meta name="parley-base" content="/console">');
    expect(script).toStartWith("/console/dashboard/assets/main-");
    expect((await get(prefixed.url, script)).status).toBe(200);
    await shell(prefixed.url, "/console");
    await shell(prefixed.url, "/console/");
    await shell(prefixed.url, "/login");
  });
});
