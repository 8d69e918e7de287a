// The dashboard wears the brand of the domain it is opened on (the page's Host picks it), and the same
// dashboard is served by the single executable, dist/parley, working from sign-up to a key.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { builtBinary } from "../helpers/binary.ts";
import { chromiumAvailable, launchChromium } from "../helpers/chromium.ts";
import { dashboardHarness, heading, signIn } from "../helpers/dashboard-browser.ts";
import { registerOperator, registerUser } from "../helpers/fixtures.ts";
import { spawnServer, type ServerProcess } from "../helpers/process.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

declare const document: any, getComputedStyle: (el: unknown) => any;

const DOMAIN = "voice.acme.test";
const h = dashboardHarness("brand", { settings: { domainVerification: "skip" } });
let branded: Browser;

/** A real 2×2 PNG (signature, IHDR, IDAT, IEND with their CRCs), as a reseller would upload. */
function tinyPng(): string {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type), data]);
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), 8 + data.length);
    return out;
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(2, 0);
  ihdr.writeUInt32BE(2, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const rows = Buffer.from([0, 170, 34, 0, 170, 34, 0, 0, 170, 34, 0, 170, 34, 0]);
  const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(rows)), chunk("IEND", Buffer.alloc(0))]);
  return png.toString("base64");
}

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  // The reseller's domain resolves to this machine, as its DNS would send it to the instance.
  branded = await launchChromium([`--host-resolver-rules=MAP ${DOMAIN} 127.0.0.1`]);
});
afterAll(async () => {
  await branded?.close();
});

const brandOf = (page: Page) =>
  page.evaluate(() => ({
    title: document.title,
    name: document.querySelector(".brand-name")?.textContent,
    logo: document.querySelector(".brand-logo")?.getAttribute("src") ?? null,
    primary: getComputedStyle(document.documentElement).getPropertyValue("--brand-primary").trim(),
    sheets: document.adoptedStyleSheets.length,
  }));

describe.skipIf(!chromiumAvailable())("branding by Host", () => {
  test("the reseller's domain shows its name, logo, colours and CSS; the instance's own address shows Parley", async () => {
    const reseller = await registerUser(h.server.api, "reseller");
    const put = await h.server.api.put(
      "/v1/white-label",
      { product_name: "Acme Voice", logo: { content_type: "image/png", data_base64: tinyPng() }, colors: { primary: "#aa2200" }, custom_css: ".brand-name { letter-spacing: 2px; }" },
      { token: reseller.token },
    );
    expect(put.status).toBe(200);
    const attached = await h.server.api.post("/v1/white-label/domains", { domain: DOMAIN }, { token: reseller.token });
    expect(attached.body.status).toBe("verified"); // the operator skips DNS on this instance

    const port = new URL(h.server.url).port;
    const context = await branded.newContext();
    const page = await context.newPage();
    page.on("console", (message) => {
      if (message.type() === "error") h.problems.push(`${page.url()}: ${message.text()}`);
    });
    await page.goto(`http://${DOMAIN}:${port}/login`);
    await heading(page, "Sign in");
    await page.waitForFunction(() => document.querySelector(".brand-name")?.textContent === "Acme Voice");
    const seen = await brandOf(page);
    expect(seen).toMatchObject({ name: "Acme Voice", primary: "#aa2200", sheets: 1 });
    expect(seen.title).toContain("Acme Voice");
    expect(seen.logo).toMatch(/^\/v1\/branding\/logos\/[0-9a-f]{64}\.png$/);
    expect(await page.evaluate(() => (document.querySelector(".brand-logo") as any).naturalWidth)).toBe(2);
    expect(await page.evaluate(() => getComputedStyle(document.querySelector(".brand-name")).letterSpacing)).toBe("2px");
    await h.screen(page, "sign-in-on-reseller-domain");
    await context.close();

    const plain = await h.open("/login");
    await heading(plain.page, "Sign in");
    await plain.page.waitForFunction(() => document.querySelector(".brand-name")?.textContent === "Parley");
    expect(await brandOf(plain.page)).toMatchObject({ name: "Parley", logo: null, sheets: 0 });
    await h.screen(plain.page, "sign-in-on-instance");
    await plain.context.close();
  }, 30_000);

  test("the operator console shows on the instance's own address, never on a reseller's domain", async () => {
    const operator = await registerOperator(h.server, "console");
    const port = new URL(h.server.url).port;
    const onDomain = await branded.newContext();
    const page = await onDomain.newPage();
    await page.goto(`http://${DOMAIN}:${port}/login`);
    await signIn(page, operator.email, operator.password);
    await page.getByRole("link", { name: "Agents" }).waitFor();
    expect(await page.getByRole("link", { name: "Operator" }).count()).toBe(0);
    await onDomain.close();
    const own = await h.open("/login");
    await signIn(own.page, operator.email, operator.password);
    await own.page.getByRole("link", { name: "Operator" }).waitFor();
    await own.context.close();
  }, 30_000);

  test("no console error anywhere, and axe-core finds nothing serious", () => {
    h.expectClean();
  });
});

describe.skipIf(!chromiumAvailable())("the dashboard of dist/parley", () => {
  const dataDir = tempDirs("parley-dash-bin-");
  let server: ServerProcess;

  beforeAll(async () => {
    server = await spawnServer([await builtBinary()], ["--data-dir", dataDir()]);
  }, 180_000);
  afterAll(() => server?.stop());

  test("serves the embedded dashboard: sign up, then make a key and see its secret once", async () => {
    const context = await h.browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") errors.push(message.text());
    });
    await page.goto(`${server.url}/signup`);
    await heading(page, "Create your account");
    await page.getByLabel("Your name").fill("Bina Binary");
    await page.getByLabel("E-mail").fill("bina@example.com");
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByLabel("Workspace name").fill("From the binary");
    await page.getByRole("button", { name: "Create account" }).click();
    await heading(page, "Getting started");
    await page.getByRole("link", { name: "API keys" }).click();
    await heading(page, "API keys");
    await page.getByRole("button", { name: "New key" }).click();
    await page.getByLabel("Name").fill("Server");
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.getByLabel("Secret of Server").inputValue()).toMatch(/^sk_parley_live_\w+$/);
    const script = await page.evaluate(() => (document.querySelector("script[src]") as any).src);
    const asset = await fetch(script, { headers: { "accept-encoding": "gzip" } });
    expect(asset.status).toBe(200);
    expect(asset.headers.get("cache-control")).toContain("immutable");
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);
});
