// The calls and knowledge-base screens in Chromium against a real server, with real simulated calls: the
// list while a call is live and with filters, the call's page updating live until it has ended, then its
// recording playing (the transcript turn playing is highlighted; clicking a turn seeks), the per-turn
// latency and the webhook events sent; a knowledge base made, fed text, a file and a web page, indexed
// with progress, searched with scores, and deleted after confirming. Light, dark and 360 px; axe-core.
import { afterAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumAvailable, hostPages } from "../helpers/chromium.ts";
import { dashboardHarness, heading, signIn } from "../helpers/dashboard-browser.ts";
import { registerUser, type RegisteredUser } from "../helpers/fixtures.ts";

// Page-side code (run by page.evaluate) sees the browser's globals; the suite is typed without the DOM library.
declare const document: any;

const h = dashboardHarness("calls");
const site = hostPages((path) => (path === "/hours.html" ? { body: "<html><head><title>Opening hours</title></head><body><h1>Opening hours</h1><p>The shop opens at nine in the morning and closes at six in the evening, Monday to Saturday.</p></body></html>" } : null));
afterAll(() => site.stop());

describe.skipIf(!chromiumAvailable())("calls and knowledge bases in the dashboard", () => {
  let user: RegisteredUser;
  let agent: { id: string; name: string };
  let liveCall: string;
  let busyCall: string;
  let owner: { context: BrowserContext; page: Page };
  const api = {
    get: (path: string) => h.server.api.get(path, { token: user.token }),
    post: (path: string, body: unknown) => h.server.api.post(path, body, { token: user.token }),
  };

  test("the calls list: a live call shows as live, then filters by status, direction and agent", async () => {
    user = await registerUser(h.server.api, "caller");
    agent = (await api.post("/v1/agents", { name: "Front desk", first_message: "Hello, how can I help?" })).body;
    const number = (await api.post("/v1/phone-numbers/buy", { area_code: "415" })).body;
    await api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id });
    // A real simulated call of about 17 s, left running while the screens are used.
    liveCall = (await api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { lines: ["What are your opening hours?", "Thanks, goodbye"], recognition: "simulated" } })).body.id;
    busyCall = (await api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550177", simulation: { behaviour: "busy" } })).body.id;

    owner = await h.open("/calls");
    const { page } = owner;
    await heading(page, "Sign in");
    await signIn(page, user.email, user.password);
    await heading(page, "Calls");
    const liveRow = page.getByRole("row", { name: /\+12125550150/ });
    await liveRow.getByText(/queued|ringing|in progress/).waitFor();
    await page.getByRole("row", { name: /\+12125550177/ }).getByText("busy").waitFor({ timeout: 15_000 });
    await h.screen(page, "calls-list-live");

    await page.getByLabel("Status").selectOption("busy");
    await page.waitForURL(/status=busy/);
    await liveRow.waitFor({ state: "detached" });
    expect(await page.getByRole("row", { name: /\+12125550177/ }).count()).toBe(1);
    await page.getByLabel("Direction").selectOption("inbound");
    await page.getByText("No calls match these filters").waitFor();
    await h.screen(page, "calls-list-filtered-empty");
    await page.getByLabel("Direction").selectOption("outbound");
    await page.getByLabel("Status").selectOption("");
    await page.getByLabel("Agent").selectOption({ label: "Front desk" });
    await liveRow.waitFor();
    expect(await page.getByRole("row").count()).toBe(3); // the header and both calls
    expect(new URL(page.url()).searchParams.get("agent_id")).toBe(agent.id);
  }, 30_000);

  test("a live call's page updates by itself: the transcript grows while it runs", async () => {
    const { page } = owner;
    await page.getByRole("link", { name: /Call to \+12125550150/ }).click();
    await heading(page, "Call to +12125550150");
    await page.getByText("Live: this page updates every 2 seconds.").waitFor();
    await page.getByRole("button", { name: "End call" }).waitFor();
    await page.locator(".calls-turn").first().waitFor({ timeout: 15_000 });
    expect(await page.locator(".calls-turn").first().textContent()).toContain("Hello, how can I help?");
    await h.screen(page, "call-live");
  }, 30_000);

  test("knowledge bases: made, fed text, a file and a web page, indexed with progress, searched with scores, deleted after confirming", async () => {
    const { context } = owner;
    const page = await context.newPage();
    page.on("pageerror", (error) => h.problems.push(`${page.url()}: ${error}`));
    await page.goto(`${h.server.url}/knowledge`);
    await heading(page, "Knowledge bases");
    await page.getByText("No knowledge bases yet").waitFor();
    await h.screen(page, "knowledge-empty");
    await page.getByRole("button", { name: "New knowledge base" }).click();
    await page.getByRole("button", { name: "Create" }).click();
    await page.locator('input[name="name"][aria-invalid="true"]').waitFor(); // the server's 422 names the field
    await page.getByLabel("Name").fill("Shop facts");
    await page.getByLabel("Description").fill("Hours, returns and delivery");
    await page.getByRole("button", { name: "Create" }).click();
    await heading(page, "Shop facts");
    await page.getByText("No sources yet").waitFor();

    // Text.
    await page.getByRole("button", { name: "Add source" }).click();
    await page.getByRole("tab", { name: "Text" }).click();
    await page.getByRole("textbox", { name: "Text" }).fill("Returns are accepted within thirty days with the receipt. Refunds go back to the card used.");
    await page.getByLabel("Name").fill("Returns policy");
    await h.screen(page, "knowledge-add-text");
    await page.getByRole("button", { name: "Add source" }).last().click();
    await page.getByRole("row", { name: /Returns policy/ }).waitFor();
    // A file, through the client library's multipart upload.
    await page.getByRole("button", { name: "Add source" }).click();
    await page.getByLabel("File to upload").setInputFiles({ name: "delivery.md", mimeType: "text/markdown", buffer: Buffer.from("# Delivery\n\nOrders ship within two working days. Delivery is free above fifty pounds.\n") });
    await page.getByRole("button", { name: "Add source" }).last().click();
    await page.getByRole("row", { name: /delivery\.md/ }).waitFor();
    // A web page.
    await page.getByRole("button", { name: "Add source" }).click();
    await page.getByRole("tab", { name: "Web page" }).click();
    await page.getByLabel("Address").fill(`${site.origin}/hours.html`);
    await page.getByRole("button", { name: "Add source" }).last().click();
    await page.getByRole("row", { name: /hours\.html|Opening hours/ }).waitFor();
    // Every source reaches Ready without a reload (the page polls while any is indexing).
    await page.waitForFunction(() => document.querySelectorAll(".knowledge-ready").length === 3, undefined, { timeout: 20_000 });
    await h.screen(page, "knowledge-sources-ready");

    await page.getByLabel("Question").fill("When do you open?");
    await page.getByRole("button", { name: "Search" }).click();
    const results = page.getByRole("list", { name: "Results for “When do you open?”" });
    await results.waitFor();
    const first = await results.getByRole("listitem").first().textContent();
    expect(first).toContain("nine in the morning");
    expect(first).toMatch(/Score 0\.\d\d/);
    await h.screen(page, "knowledge-search");

    await page.getByRole("button", { name: "Delete Returns policy" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete “Returns policy”?" });
    await dialog.getByRole("button", { name: "Delete source" }).click();
    await page.getByRole("row", { name: /Returns policy/ }).waitFor({ state: "detached" });

    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("dialog", { name: "Delete “Shop facts”?" }).getByRole("button", { name: "Cancel" }).click();
    await heading(page, "Shop facts"); // cancelled: still there
    await page.getByRole("link", { name: "← All knowledge bases" }).click();
    await heading(page, "Knowledge bases");
    expect(await page.getByRole("row", { name: /Shop facts/ }).textContent()).toContain("2");
    await h.screen(page, "knowledge-bases");
    await page.getByRole("button", { name: "Delete Shop facts" }).click();
    await page.getByRole("dialog", { name: "Delete “Shop facts”?" }).getByRole("button", { name: "Delete knowledge base" }).click();
    await page.getByText("No knowledge bases yet").waitFor();
    await page.close();
  }, 40_000);

  test("the call has ended on its own page: recording with waveform plays, the turn playing is highlighted, a turn seeks; latency and events sent are shown", async () => {
    const { page } = owner;
    await page.getByRole("button", { name: "Erase content" }).waitFor({ timeout: 30_000 }); // shown once the call is no longer live
    await page.getByText("Live: this page updates every 2 seconds.").waitFor({ state: "detached" });
    expect(await page.locator(".calls-status").first().textContent()).toBe("completed");
    await page.locator("audio").waitFor();
    await page.waitForFunction(() => document.querySelector("audio").readyState >= 1, undefined, { timeout: 10_000 });
    const duration = await page.locator("audio").evaluate((a: any) => a.duration);
    expect(duration).toBeGreaterThan(10);
    expect(await page.locator("canvas.waveform").evaluate((c: any) => c.width > 0)).toBe(true);
    await page.getByText("The agent asks for no fields to be extracted.").waitFor({ timeout: 15_000 });

    // A click on the third turn (the agent's answer) plays from its start; that turn is highlighted.
    const turn = page.getByRole("button", { name: /^Play from 0:07\s*Agent:/ });
    await turn.click();
    await page.waitForFunction(() => document.querySelector("audio").currentTime > 7.2 && !document.querySelector("audio").paused, undefined, { timeout: 10_000 });
    const at = await page.locator("audio").evaluate((a: any) => a.currentTime);
    await page.waitForFunction((start: number) => document.querySelector("audio").currentTime > start + 0.3, at, { timeout: 10_000 });
    await page.locator('.calls-turn[aria-current="true"]').getByText("I'm sorry").waitFor();
    await h.screen(page, "call-playing");
    await page.locator("audio").evaluate((a: any) => a.pause());

    // Latency per agent turn, and the webhook events sent about the call.
    const latency = page.getByRole("table", { name: "Latency of each agent turn" });
    expect(await latency.getByRole("row").count()).toBe(3); // the header and two answers
    expect(await latency.getByRole("row").nth(1).textContent()).toContain("What are your opening hours?");
    await page.locator(".calls-sent").getByText("call.completed", { exact: true }).waitFor();
    expect(await page.locator(".calls-sent").getByText("call.transcript", { exact: true }).count()).toBeGreaterThan(0);
    await page.locator(".calls-sent summary").first().click();
    await h.screen(page, "call-ended");
  }, 45_000);

  test("erasing a call's content asks first; 360 px and dark stay usable", async () => {
    const { page } = owner;
    await page.getByRole("button", { name: "Erase content" }).click();
    await page.getByRole("dialog", { name: "Erase this call's content?" }).waitFor();
    await h.screen(page, "call-erase-confirm");
    await page.keyboard.press("Escape");
    expect(await page.locator("audio").count()).toBe(1);

    const narrow = await h.open(`/calls/${liveCall}`, { width: 360, height: 740, colorScheme: "dark" });
    // The session lives in localStorage per context: sign in again in this one.
    await heading(narrow.page, "Sign in");
    await signIn(narrow.page, user.email, user.password);
    await heading(narrow.page, "Call to +12125550150");
    await narrow.page.locator("audio").waitFor();
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await h.screen(narrow.page, "call-360px-dark");
    await narrow.page.goto(`${h.server.url}/calls?status=busy`);
    await narrow.page.getByRole("row", { name: /\+12125550177/ }).waitFor();
    expect(await narrow.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await h.screen(narrow.page, "calls-360px-dark");
    await narrow.page.goto(`${h.server.url}/calls/${busyCall}`);
    await heading(narrow.page, "Call to +12125550177");
    await narrow.page.getByText("This call has no recording.").waitFor();
    await h.screen(narrow.page, "call-busy-360px-dark");
    await narrow.context.close();
  }, 30_000);

  test("no console errors, no CSP violations, no serious accessibility findings", async () => {
    await owner?.context.close();
    h.expectClean();
  });
});
