// A newcomer's journey through the dashboard alone, in Chromium against a real server: sign up, make an
// agent from a template, buy a number on the simulated carrier and give it to the agent, place a call to a
// simulated person, watch it complete, and play its recording.
import { describe, expect, test } from "bun:test";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { dashboardHarness, heading } from "../helpers/dashboard-browser.ts";

declare const document: any;

const h = dashboardHarness("journey");

describe.skipIf(!chromiumAvailable())("a newcomer's first call, from the dashboard", () => {
  test("sign up, agent from a template, a number, a simulated call completed, its recording playing", async () => {
    const { context, page } = await h.open("/signup");
    await heading(page, "Create your account");
    await page.getByLabel("Your name").fill("Nora Newcomer");
    await page.getByLabel("E-mail").fill("nora@example.com");
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByLabel("Workspace name").fill("Nora's shop");
    await page.getByRole("button", { name: "Create account" }).click();
    await heading(page, "Getting started");

    // An agent from the receptionist template (a flow: no language model needed).
    await page.getByRole("link", { name: "Agents", exact: true }).click();
    await heading(page, "Agents");
    await page.getByRole("button", { name: "New agent" }).click();
    await page.getByRole("textbox", { name: "Name" }).fill("Front desk");
    await page.getByLabel(/Receptionist/).check();
    await h.screen(page, "new-agent");
    await page.getByRole("button", { name: "Create agent" }).click();
    await heading(page, "Front desk");
    await h.screen(page, "agent");

    // A number on the built-in simulated carrier, given to the agent.
    await page.getByRole("link", { name: "Numbers" }).click();
    await heading(page, "Phone numbers");
    await page.getByRole("button", { name: "Buy a number" }).click();
    await page.getByLabel("Area code").fill("415");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByRole("button", { name: /^Buy \+1415/ }).first().click();
    // The number's own row (it can be assigned), not a search result still on screen while the purchase lands.
    const row = page.getByRole("row", { name: /\+1415/ }).filter({ has: page.getByRole("button", { name: "Assign" }) });
    await row.waitFor();
    await row.getByRole("combobox").selectOption({ label: "Front desk" });
    await row.getByRole("button", { name: "Assign" }).click();
    await row.locator("button[disabled]", { hasText: "Assign" }).waitFor(); // assigned: nothing left to assign
    await h.screen(page, "numbers");

    // A call to a simulated person who asks one thing and says goodbye.
    await page.getByRole("link", { name: "Calls" }).click();
    await heading(page, "Calls");
    await page.getByText("No calls yet").waitFor();
    await page.getByRole("button", { name: "Place a call" }).click();
    await page.getByLabel("What the simulated person says").fill("What are your opening hours?\nThanks, goodbye");
    await h.screen(page, "place-call");
    await page.getByRole("button", { name: "Call", exact: true }).click();

    // Its page follows it live to the end, then plays the recording.
    await page.getByRole("button", { name: "Erase content" }).waitFor({ timeout: 60_000 });
    expect(await page.locator(".calls-status").first().textContent()).toBe("completed");
    await page.getByText("We are open nine to six").first().waitFor();
    await page.waitForFunction(() => document.querySelector("audio")?.readyState >= 1, undefined, { timeout: 15_000 });
    expect(await page.locator("audio").evaluate((a: any) => a.duration)).toBeGreaterThan(3);
    await page.locator("audio").evaluate((a: any) => a.play());
    await page.waitForFunction(() => document.querySelector("audio").currentTime > 0.5, undefined, { timeout: 10_000 });
    await h.screen(page, "first-call");
    await page.locator("audio").evaluate((a: any) => a.pause());
    await context.close();
  }, 120_000);

  test("no console error or CSP violation, and axe-core finds nothing serious", () => {
    h.expectClean();
  });
});
