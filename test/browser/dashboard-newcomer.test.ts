// A newcomer's first hour in Chromium against a real server (issue 34, dashboard items 1–4): refusals in
// words on the forms people type in (request ids only under "Details"), sign-up landing on "Getting
// started" whose steps tick off from what the workspace really holds, a first call from an agent with no
// number (an error in words with a way out, then one click for a simulated number), and billing that says
// what applies on this instance (free calls are not "refused at $0.00", no card where there is no Stripe,
// a reference that never splits).
import { describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { dashboardHarness, heading } from "../helpers/dashboard-browser.ts";
import { registerUser } from "../helpers/fixtures.ts";

const EMAIL = "nina@example.com";
const PASSWORD = "a long enough password";

const h = dashboardHarness("newcomer");
let owner: { context: BrowserContext; page: Page };

/** The error under the control named `name`. */
const fieldError = (page: Page, name: string) => page.locator(`.field:has([name="${name}"]) .field-error`).textContent();
/** What a person sees of the page (a closed "Details" is not rendered, so not part of it). */
const visibleText = (page: Page): Promise<string> => page.locator("body").innerText();
const step = (page: Page, title: string) => page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: new RegExp(title) }) });

describe.skipIf(!chromiumAvailable())("a newcomer's first hour in the dashboard", () => {
  test("sign-up, sign-in and reset say what is wrong in words; request ids wait under Details; a taken e-mail offers signing in", async () => {
    const taken = await registerUser(h.server.api, "taken");
    const { context, page } = await h.open("/signup");
    await heading(page, "Create your account");
    await page.getByLabel("E-mail").fill("not an address");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.locator('input[name="password"][aria-invalid="true"]').waitFor();
    expect(await fieldError(page, "password")).toBe("Use at least 8 characters.");
    expect(await fieldError(page, "email")).toBe("Enter an e-mail address, like name@example.com.");
    const refused = await visibleText(page);
    expect(refused).not.toContain("expected string");
    expect(refused).not.toMatch(/req_\w/);
    // The request id and the server's words are there for a report, one click away.
    await page.getByRole("alert").getByText("Details").click();
    expect(await page.getByRole("alert").innerText()).toMatch(/Request req_\w+/);
    expect(await page.getByRole("alert").innerText()).toContain("validation_failed");
    await h.screen(page, "sign-up-invalid");

    await page.getByLabel("E-mail").fill(taken.email);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("An account with this e-mail already exists.").waitFor();
    expect(await fieldError(page, "email")).toBe("An account with this e-mail already exists. Sign in instead?");
    expect(await visibleText(page)).not.toContain("is already registered");
    await h.screen(page, "sign-up-taken");
    await page.getByRole("link", { name: "Sign in instead?" }).click();
    await heading(page, "Sign in");
    expect(await page.getByLabel("E-mail").inputValue()).toBe(taken.email);

    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").getByText("The e-mail or the password is not right.").waitFor();
    expect(await visibleText(page)).not.toMatch(/req_\w/);
    await h.screen(page, "sign-in-refused");

    await page.goto(`${h.server.url}/reset-password?token=rst_made_up`);
    await page.getByLabel("New password").fill("short");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.locator('input[name="password"][aria-invalid="true"]').waitFor();
    expect(await fieldError(page, "password")).toBe("Use at least 8 characters.");
    await context.close();
  }, 30_000);

  test("sign-up lands on Getting started: five steps, none done; an agent made from there ticks the first", async () => {
    owner = await h.open("/signup");
    const { page } = owner;
    await page.getByLabel("Your name").fill("Nina Newcomer");
    await page.getByLabel("E-mail").fill(EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByLabel("Workspace name").fill("Nina's bakery");
    await page.getByRole("button", { name: "Create account" }).click();
    await heading(page, "Getting started");
    expect(new URL(page.url()).pathname).toBe("/getting-started");
    expect(await page.getByTestId("start-progress").textContent()).toBe("0 of 5 done");
    expect(await page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Getting started" }).getAttribute("aria-current")).toBe("page");
    expect(await step(page, "Talk to it in the browser").innerText()).toContain("Create an agent first.");
    await h.screen(page, "getting-started-new");

    await page.getByRole("button", { name: "New agent" }).click();
    await page.getByRole("textbox", { name: "Name" }).fill("Front desk");
    await page.getByLabel(/Receptionist/).check();
    await page.getByRole("button", { name: "Create agent" }).click();
    await heading(page, "Front desk");
    await page.getByRole("link", { name: "Getting started" }).click();
    await heading(page, "Getting started");
    expect(await page.getByTestId("start-progress").textContent()).toBe("1 of 5 done");
    expect(await step(page, "Create an agent from a template").innerText()).toContain("Done");
    expect(await step(page, "Place a simulated call").innerText()).toContain("To do");
  }, 30_000);

  test("no console error or CSP violation, and axe-core finds nothing serious on any screen", async () => {
    await owner.context.close();
    h.expectClean();
  });
});
