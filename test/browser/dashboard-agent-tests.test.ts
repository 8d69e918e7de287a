// An agent's Tests tab in Chromium against a real server, with real simulated test calls: a case written in
// the form (a refused regular expression marked beside its field first), run with a failing case beside it,
// the run's progress followed until it ends, the passing case passed, the failing one read beside its
// transcript with the failed expectation's detail and its recording playable, run again alone against a
// draft version and compared with the run before; then a case made from a past call in one click, then
// deleted after confirming; then the settings saved as a draft (the live agent unchanged), its tests run
// from there, publishing it refused while its run failed, then published without the gate.
// axe-core, console errors and CSP on every screen.
import { describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { dashboardHarness, heading, signIn, waitForFocus } from "../helpers/dashboard-browser.ts";
import { registerUser, type RegisteredUser } from "../helpers/fixtures.ts";

// Page-side code (run by page.evaluate) sees the browser's globals; the suite is typed without the DOM library.
declare const document: any;

const h = dashboardHarness("agent-tests");

// A flow agent that asks, answers with the opening hours and hangs up: a call is a few seconds long.
const FLOW = {
  start: "ask",
  nodes: {
    ask: { type: "ask", text: "Hello, this is the shop. What would you like to know?", slot: { name: "topic", type: "string" }, next: "answer" },
    answer: { type: "say", text: "We are open from nine to six on weekdays.", next: "bye" },
    bye: { type: "end", text: "Goodbye." },
  },
};

describe.skipIf(!chromiumAvailable())("an agent's tests in the dashboard", () => {
  let user: RegisteredUser;
  let agent: { id: string };
  let pastCall: string;
  let owner: { context: BrowserContext; page: Page };
  const api = {
    get: (path: string) => h.server.api.get(path, { token: user.token }),
    post: (path: string, body: unknown) => h.server.api.post(path, body, { token: user.token }),
  };

  test("a case written in the form (its refused field marked), run beside a failing case: progress, pass, the failure read beside its transcript with the recording; run again on a draft, with the diff", async () => {
    user = await registerUser(h.server.api, "tester");
    agent = (await api.post("/v1/agents", { name: "Shop desk", brain: { type: "flow", flow: FLOW } })).body;
    const number = (await api.post("/v1/phone-numbers/buy", { area_code: "415" })).body;
    await api.post(`/v1/phone-numbers/${number.id}/assign`, { agent_id: agent.id });
    // A real call in the agent's past (for the last test), made while the browser works.
    pastCall = (await api.post("/v1/calls/outbound", { agent_id: agent.id, to: "+12125550150", simulation: { lines: ["What are your opening hours?"], recognition: "simulated" } })).body.id;
    // The failing case, through the API: the agent never talks of bananas.
    const failing = await api.post(`/v1/agents/${agent.id}/tests`, { name: "Mentions bananas", caller: { type: "script", turns: [{ say: "What are your opening hours?" }] }, expectations: [{ type: "agent_says", contains: "bananas" }, { type: "ended", end_reason: "agent_hangup" }] });
    expect(failing.status).toBe(201);
    // A draft version with other hours, not live: the failing case is run against it later.
    const answer = { ...FLOW.nodes.answer, text: "We are open from nine to five on weekdays." };
    expect((await api.post(`/v1/agents/${agent.id}/versions`, { brain: { type: "flow", flow: { ...FLOW, nodes: { ...FLOW.nodes, answer } } }, note: "Shorter hours" })).status).toBe(201);

    owner = await h.open(`/agents/${agent.id}?tab=tests`);
    const { page } = owner;
    await heading(page, "Sign in");
    await signIn(page, user.email, user.password);
    await heading(page, "Shop desk");
    await page.getByRole("row", { name: /Mentions bananas/ }).waitFor();
    expect(await page.getByRole("row", { name: /Mentions bananas/ }).textContent()).toContain("Not run yet");
    await h.screen(page, "tests-list");

    await page.getByRole("link", { name: "New test" }).click();
    await page.getByRole("heading", { name: "New test" }).waitFor();
    await page.getByLabel("Name").fill("Opening hours");
    const turn = page.getByRole("group", { name: "Turn 1" });
    await turn.getByLabel("Words").fill("What are your opening hours?");
    // The first expectation as a regular expression that does not compile: the API's 422 names the field.
    const first = page.getByRole("group", { name: "Expectation 1" });
    await first.getByLabel("Check").selectOption("regex");
    await first.getByLabel("Regular expression").fill("open (from");
    await page.getByRole("button", { name: "Add an expectation" }).click();
    const second = page.getByRole("group", { name: "Expectation 2" });
    await second.getByLabel("Kind").selectOption("ended");
    await second.getByLabel("Status").fill("");
    await second.getByLabel("End reason").fill("agent_hangup");
    await page.getByRole("button", { name: "Create test" }).click();
    const regex = first.getByLabel("Regular expression");
    await waitForFocus(regex);
    expect(await regex.getAttribute("aria-invalid")).toBe("true");
    await h.screen(page, "tests-case-refused");
    await regex.fill("open from (nine|9) to (six|6)");
    await page.getByRole("button", { name: "Create test" }).click();
    await page.getByRole("heading", { name: "Test “Opening hours”" }).waitFor();
    // The JSON view holds the whole definition, the form's parts included.
    await page.getByRole("tab", { name: "JSON" }).click();
    const json = JSON.parse(await page.getByLabel("The whole test (JSON)").inputValue());
    expect(json.caller.turns).toEqual([{ say: "What are your opening hours?" }]);
    expect(json.expectations).toEqual([{ type: "agent_says", regex: "open from (nine|9) to (six|6)" }, { type: "ended", end_reason: "agent_hangup" }]);
    await h.screen(page, "tests-case-json");

    await page.getByRole("link", { name: "← All tests" }).click();
    await page.getByRole("row", { name: /Opening hours/ }).waitFor();
    expect(await page.getByRole("row", { name: /Opening hours/ }).textContent()).toContain("Script, 1 turn");
    await page.getByRole("button", { name: "Run all tests" }).click();
    await page.getByRole("heading", { name: /^Test run of / }).waitFor();
    // Progress while it runs, then the verdict, without a reload.
    const progress = page.locator(".tests-progress");
    expect(await progress.textContent()).toMatch(/of 2 done/);
    await progress.getByText("2 of 2 done", { exact: false }).waitFor({ timeout: 40_000 });
    await progress.locator(".tests-failed").waitFor();
    expect(await page.getByRole("row", { name: /Opening hours/ }).locator(".tests-passed").count()).toBe(1);
    expect(await page.getByRole("row", { name: /Mentions bananas/ }).locator(".tests-failed").count()).toBe(1);

    // The failed case is shown beside its transcript: the failed expectation and why, the passed one too.
    const result = page.locator(".tests-result");
    await result.getByRole("heading", { name: /Mentions bananas/ }).waitFor();
    const failed = result.locator(".tests-check.failed");
    expect(await failed.count()).toBe(1);
    expect(await failed.textContent()).toContain("bananas");
    expect((await failed.locator(".tests-detail").textContent())!.length).toBeGreaterThan(10);
    expect(await result.locator(".tests-check.passed").count()).toBe(1);
    const transcript = result.getByRole("list", { name: "Transcript" });
    await transcript.getByText("What are your opening hours?").waitFor();
    await transcript.getByText("open from nine to six").waitFor();
    // Its recording plays from the call's recording.
    await page.waitForFunction(() => document.querySelector(".tests-result audio")?.readyState >= 1, undefined, { timeout: 10_000 });
    expect(await result.locator("audio").getAttribute("src")).toMatch(/^blob:/);
    expect(await result.locator("audio").evaluate((a: any) => a.duration)).toBeGreaterThan(1);
    await h.screen(page, "tests-run-failed-case");

    // The list shows each case's last result; the failing case run again alone is compared with this run.
    await page.getByRole("link", { name: "← All tests" }).click();
    await page.getByRole("row", { name: /Opening hours/ }).locator(".tests-passed").waitFor();
    await page.getByRole("table", { name: "Test runs" }).getByText("Failed").waitFor();
    await page.getByLabel("Choose “Mentions bananas”").check();
    await page.getByLabel("Against").selectOption({ label: "Version 2 (draft) · Shorter hours" });
    await page.getByRole("button", { name: "Run selected (1)" }).click();
    await page.locator(".tests-progress").getByText("1 of 1 done", { exact: false }).waitFor({ timeout: 40_000 });
    expect(await page.locator(".tests-progress").textContent()).toContain("Version 2");
    expect(await page.getByRole("table", { name: "Cases in this run" }).getByRole("row").count()).toBe(2); // the header and the one case
    await result.getByText(/In the previous run it failed\. 1 turn differs/).waitFor();
    const changed = result.getByRole("list", { name: "What changed" });
    expect(await changed.locator("del").textContent()).toContain("nine to six");
    expect(await changed.locator("ins").textContent()).toContain("nine to five");
    await h.screen(page, "tests-run-again");
    await page.getByRole("link", { name: "← All tests" }).click();
    const runs = page.getByRole("table", { name: "Test runs" }).getByRole("row");
    await runs.nth(2).waitFor();
    expect(await runs.count()).toBe(3); // the header and both runs
  }, 60_000);

  test("a case made from a past call in one click lands in the Tests tab on the new case; deleted after confirming", async () => {
    const { page } = owner;
    for (let i = 0; i < 60 && (await api.get(`/v1/calls/${pastCall}`)).body.status !== "completed"; i++) await Bun.sleep(250);
    await page.goto(`${h.server.url}/calls/${pastCall}`);
    await heading(page, "Call to +12125550150");
    await page.getByRole("button", { name: "Make a test from this call" }).click();
    await page.waitForURL(/tab=tests&case=atest_/);
    await page.getByRole("heading", { name: /^Test “/ }).waitFor();
    expect(await page.getByRole("group", { name: "Turn 1" }).getByLabel("Words").inputValue()).toBe("What are your opening hours?");
    await h.screen(page, "tests-case-from-call");
    expect((await api.get(`/v1/agents/${agent.id}/tests`)).body.data.length).toBe(3);
    // Deleted after confirming: back in the list without it.
    const name = (await page.getByLabel("Name").inputValue()).trim();
    await page.getByRole("button", { name: "Delete", exact: true }).click();
    await page.getByRole("dialog", { name: /^Delete the test/ }).getByRole("button", { name: "Delete test" }).click();
    await page.getByRole("row", { name: /Opening hours/ }).waitFor();
    expect(await page.getByRole("row", { name }).count()).toBe(0);
    expect((await api.get(`/v1/agents/${agent.id}/tests`)).body.data.length).toBe(2);
  }, 30_000);

  test("settings saved as a draft leave the live agent alone; its tests run from there; publishing it with the gate is refused naming the failed run, without the gate it goes live", async () => {
    const { page } = owner;
    await page.goto(`${h.server.url}/agents/${agent.id}`);
    await heading(page, "Shop desk");
    await page.locator('form[aria-label="Agent settings"] input[name="name"]').fill("Shop desk (weekends)");
    await page.getByRole("button", { name: "Save as draft" }).click();
    await page.getByRole("status").getByText("Saved as draft version 3", { exact: false }).waitFor();
    const live = (await api.get(`/v1/agents/${agent.id}`)).body;
    expect([live.version, live.name]).toEqual([1, "Shop desk"]);
    expect((await api.get(`/v1/agents/${agent.id}/versions`)).body.data.find((v: { version: number }) => v.version === 3)).toMatchObject({ draft: true, live: false });
    await heading(page, /^Shop desk$/);
    await h.screen(page, "settings-saved-as-draft");

    // The way to its tests lands with the draft chosen; the failing case run against it fails.
    await page.getByRole("link", { name: "Run the tests against it" }).click();
    await page.getByLabel("Choose “Mentions bananas”").check();
    expect(await page.getByLabel("Against").inputValue()).toBe("3");
    await page.getByRole("button", { name: "Run selected (1)" }).click();
    await page.locator(".tests-progress").getByText("1 of 1 done", { exact: false }).waitFor({ timeout: 40_000 });
    expect(await page.locator(".tests-progress").textContent()).toContain("Version 3");
    const failedRun = (await api.get(`/v1/agents/${agent.id}/test-runs/${new URL(page.url()).searchParams.get("run")}`)).body;
    expect([failedRun.agent_version, failedRun.status]).toEqual([3, "failed"]);

    // A draft offers Publish, not Restore; with the gate (checked by default) the refusal names the run.
    await page.getByRole("navigation", { name: "Agent" }).getByRole("link", { name: "Versions" }).click();
    await page.getByRole("button", { name: "Publish version 3" }).click();
    expect(await page.getByRole("button", { name: "Restore version 3" }).count()).toBe(0);
    const dialog = page.getByRole("dialog", { name: "Publish version 3?" });
    const gate = dialog.getByLabel("Only if its latest test run passed");
    expect(await gate.isChecked()).toBe(true);
    await dialog.getByRole("button", { name: "Publish", exact: true }).click();
    const refusal = dialog.getByRole("alert");
    await refusal.waitFor();
    expect(await refusal.locator("p").first().textContent()).toContain(`${failedRun.id}, failed`);
    expect(await refusal.getByRole("link", { name: "Run the tests against version 3" }).getAttribute("href")).toContain("tab=tests&against=3");
    expect((await api.get(`/v1/agents/${agent.id}`)).body.version).toBe(1);
    await h.screen(page, "versions-publish-refused");

    // Without the gate it goes live: the current badge moves to it, the page names the draft's name.
    await gate.uncheck();
    await dialog.getByRole("button", { name: "Publish", exact: true }).click();
    await dialog.waitFor({ state: "detached" });
    await heading(page, "Shop desk (weekends)");
    await page.getByRole("rowheader", { name: /^3\s*current/ }).waitFor();
    await page.getByRole("button", { name: "Restore version 1" }).waitFor();
    expect(await page.getByRole("button", { name: "Publish version 3" }).count()).toBe(0);
    expect(await page.getByRole("rowheader", { name: /^3\s*current\s*draft/ }).count()).toBe(0);
    expect((await api.get(`/v1/agents/${agent.id}`)).body).toMatchObject({ version: 3, name: "Shop desk (weekends)" });
  }, 40_000);

  test("no console errors, no CSP violations, no serious accessibility findings", async () => {
    await owner?.context.close();
    h.expectClean();
  });
});
