// The plumbing of every dashboard test in Chromium: a real server and browser for the file, pages that
// record console errors and CSP violations, and screenshots of each screen checked with axe-core.
import { afterAll, beforeAll, expect } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Locator, Page } from "playwright-core";
import { artifactDir, launchChromium } from "./chromium.ts";
import { ROOT } from "./process.ts";
import { startTestServer, type TestServer, type TestServerOptions } from "./server.ts";

// Page-side code (run by page.evaluate) sees the browser's globals; the suite is typed without the DOM library.
declare const document: any, window: any, localStorage: any;

const AXE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
/** The failed calls tests make on purpose (a refused password, a wrong token) log this line: allowed. */
const EXPECTED_HTTP_ERROR = /^Failed to load resource: the server responded with a status of (401|403|404|409|422) /;

export interface OpenOptions {
  width?: number;
  height?: number;
  colorScheme?: "light" | "dark";
}

export interface DashboardHarness {
  server: TestServer;
  browser: Browser;
  /** Console errors and CSP violations of every page: a file ends with none. */
  problems: string[];
  /** axe-core's serious or critical findings, per screen screenshotted. */
  accessibility: Record<string, string[]>;
  open(path: string, options?: OpenOptions): Promise<{ context: BrowserContext; page: Page }>;
  /** A screenshot under test/artifacts/dashboard/<group>/, and axe-core's findings on the screen. */
  screen(page: Page, name: string): Promise<void>;
  /** The most recent server log line matching (password-reset and invitation links are logged). */
  logLink(pattern: RegExp): string;
  /** Findings of serious or critical impact, by screen (empty when the screens are clean). */
  seriousFindings(): Record<string, string[]>;
  /** How every file ends: no console error or CSP violation, and nothing serious from axe-core on any screen. */
  expectClean(): void;
}

/** One server and one Chromium for the test file; `group` names its screenshot folder. */
export function dashboardHarness(group: string, options: TestServerOptions = {}): DashboardHarness {
  const shots = join(artifactDir(), "dashboard", group);
  mkdirSync(shots, { recursive: true });
  const harness = {
    problems: [] as string[],
    accessibility: {} as Record<string, string[]>,
    async open(path: string, opts: OpenOptions = {}) {
      const context = await harness.browser.newContext({ viewport: { width: opts.width ?? 1200, height: opts.height ?? 800 }, colorScheme: opts.colorScheme ?? "light" });
      await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: harness.server.url });
      const page = await context.newPage();
      page.on("console", (message) => {
        if (message.type() === "error" && !EXPECTED_HTTP_ERROR.test(message.text())) harness.problems.push(`${page.url()}: ${message.text()}`);
      });
      page.on("pageerror", (error) => harness.problems.push(`${page.url()}: ${error}`));
      await page.addInitScript(() => document.addEventListener("securitypolicyviolation", (e: any) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)));
      await page.goto(harness.server.url + path);
      return { context, page };
    },
    async screen(page: Page, name: string) {
      await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
      // Evaluated over the DevTools protocol, which the page's CSP does not govern (the page itself runs no inline script).
      if (!(await page.evaluate(() => !!window.axe))) await page.evaluate(AXE);
      const found: { id: string; impact: string; nodes: { target: string[] }[] }[] = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ["violations"] })).violations);
      harness.accessibility[name] = found.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
    },
    logLink(pattern: RegExp) {
      for (const line of [...harness.server.logs].reverse()) {
        const found = pattern.exec(line);
        if (found) return found[0];
      }
      throw new Error(`no log line matches ${pattern}`);
    },
    seriousFindings() {
      return Object.fromEntries(Object.entries(harness.accessibility).filter(([, found]) => found.length));
    },
    expectClean() {
      expect(harness.problems).toEqual([]);
      expect(harness.seriousFindings()).toEqual({});
    },
  } as DashboardHarness;
  beforeAll(async () => {
    harness.server = await startTestServer(options);
    harness.browser = await launchChromium();
  });
  afterAll(async () => {
    await harness.browser?.close();
    await harness.server?.stop();
  });
  return harness;
}

/** Waits for a screen's heading (each screen has one h1). */
export const heading = (page: Page, name: string | RegExp) => page.getByRole("heading", { level: 1, name }).waitFor();

/** The session the dashboard keeps in the browser (the client library's token store). */
export const tokensOf = (page: Page): Promise<{ access_token: string; refresh_token: string }> => page.evaluate(() => JSON.parse(localStorage.getItem("parley.session")));

/** Signs a registered user in through the sign-in screen and waits for the first signed-in screen. */
export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  // The sign-in page has its own heading: wait until the app has moved on from it.
  await page.waitForURL((url) => url.pathname !== "/login");
  await page.locator("main h1").waitFor();
}

/** What in the screen reaches past 360 px, outside the frames that scroll sideways on purpose (tables, tab bars). */
export const overflowing = (page: Page): Promise<string[]> =>
  page.evaluate(() => [...document.querySelectorAll("main *")].filter((el: any) => el.getBoundingClientRect().right > 361 && !el.closest(".table-wrap, .tab-links")).map((el: any) => `${el.tagName}.${el.className}`));

/** Waits until the element has the focus (a screen moves it to a refused field on the next frame). */
export async function waitForFocus(locator: Locator): Promise<void> {
  const handle = await locator.elementHandle();
  await locator.page().waitForFunction((el) => el === document.activeElement, handle);
}
