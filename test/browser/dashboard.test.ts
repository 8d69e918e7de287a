// The dashboard in a real browser (Debian's Chromium, playwright-core) against a real server: sign-up with a
// field the server refuses highlighted, API keys (secret once, copied, used, its requests in the audit log,
// revoked after confirming), the workspace switcher, sessions and signing out everywhere, sign-in, and the
// pages e-mails link to (password reset, invitation, newsletter) done for real with the links the server
// logged. Every screen is screenshotted into test/artifacts/dashboard/ and checked with axe-core; the run
// must log no console error and break no CSP rule. Light and dark, and 360 px wide.
import { describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { dashboardHarness, heading, tokensOf, waitForFocus } from "../helpers/dashboard-browser.ts";
import { registerUser } from "../helpers/fixtures.ts";

// Page-side code (run by page.evaluate) sees the browser's globals; the suite is typed without the DOM library.
declare const document: any, window: any, localStorage: any, navigator: any, getComputedStyle: (el: unknown) => any;

const EMAIL = "owner@example.com";
const PASSWORD = "a long enough password";

const h = dashboardHarness("account");

/**
 * Elements reaching past a 360 px screen. Tables and the sections bar scroll sideways inside their own
 * frame (which must itself fit), so what is inside them does not count.
 */
const OVERFLOWING = () =>
  [...document.querySelectorAll("body *")]
    .filter((el: any) => el.getBoundingClientRect().right > 361 && !el.closest(".table-wrap") && !el.parentElement.closest(".sidebar"))
    .map((el: any) => `${el.tagName}.${el.className}`);
const open = h.open;
const screen = h.screen;
const logLink = h.logLink;

describe.skipIf(!chromiumAvailable())("the dashboard in Chromium", () => {
  let owner: { context: BrowserContext; page: Page };

  test("sign-up: the field the server refuses is highlighted and focused; then the account is made, lands on Getting started, and the keys screen is empty", async () => {
    owner = await open("/");
    const { page } = owner;
    await heading(page, "Sign in");
    expect(new URL(page.url()).pathname).toBe("/login");
    await screen(page, "sign-in");
    await page.getByRole("link", { name: "Create an account" }).click();
    await heading(page, "Create your account");
    await page.getByLabel("Your name").fill("Olive Owner");
    await page.getByLabel("E-mail").fill(EMAIL);
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    const password = page.getByLabel("Password");
    await page.locator('input[name="password"][aria-invalid="true"]').waitFor();
    expect(await page.getByRole("alert").textContent()).toContain("highlighted field");
    await waitForFocus(password);
    // The error is read out with the control.
    expect(await password.getAttribute("aria-describedby")).toContain("-error");
    expect(await page.locator('input[name="email"]').getAttribute("aria-invalid")).toBeNull();
    await screen(page, "sign-up-invalid");
    await password.fill(PASSWORD);
    await page.getByLabel("Workspace name").fill("Acme");
    await page.getByRole("button", { name: "Create account" }).click();
    await heading(page, "Getting started");
    await page.getByRole("link", { name: "API keys" }).click();
    await heading(page, "API keys");
    await page.getByText("No API keys yet").waitFor();
    expect(await page.title()).toBe("API keys · Parley");
    await screen(page, "api-keys-empty");
  }, 30_000);

  test("API keys: created with a name and scope, the secret shown once and copied, listed with its last use, its requests in the audit log, revoked after confirming", async () => {
    const { page } = owner;
    await page.getByRole("button", { name: "New key" }).click();
    await page.getByLabel("Name").fill("Production server");
    await page.getByLabel("Scope").selectOption("read-only");
    await screen(page, "api-key-create");
    await page.getByRole("button", { name: "Create key" }).click();
    const secret = await page.getByLabel("Secret of Production server").inputValue();
    expect(secret).toMatch(/^sk_parley_live_\w+$/);
    await page.getByRole("button", { name: "Copy secret" }).click();
    await page.getByRole("button", { name: "Copied" }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await screen(page, "api-key-secret");
    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await page.getByText(secret).count()).toBe(0); // gone for good
    const row = page.getByRole("row", { name: /Production server/ });
    expect(await row.textContent()).toContain("read-only");
    expect(await row.textContent()).toContain("Never");

    // The key is used; the list shows when, and its activity lists the request.
    expect((await fetch(`${h.server.url}/v1/agents`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(200);
    const { access_token } = await tokensOf(page);
    const keyId = (await h.server.api.get("/v1/api-keys", { token: access_token })).body.data[0].id;
    for (let i = 0; i < 50 && (await h.server.api.get(`/v1/audit-log?key_id=${keyId}`, { token: access_token })).body.data.length === 0; i++) await Bun.sleep(50);
    await page.reload();
    await heading(page, "API keys");
    expect(await page.getByRole("row", { name: /Production server/ }).textContent()).not.toContain("Never");
    await screen(page, "api-keys");
    await page.getByRole("link", { name: "Activity of Production server" }).click();
    await heading(page, "Audit log");
    expect(new URL(page.url()).searchParams.get("key")).toBe(keyId);
    await page.getByRole("cell", { name: "GET /v1/agents" }).waitFor();
    expect(await page.getByLabel("API key").inputValue()).toBe(keyId);
    expect(await page.getByRole("cell", { name: /POST \/v1\/api-keys/ }).count()).toBe(0); // made by the person, not the key
    await screen(page, "audit-log-by-key");
    await page.getByLabel("API key").selectOption("");
    await page.getByRole("cell", { name: /POST \/v1\/api-keys/ }).waitFor();
    await screen(page, "audit-log");

    // Revoking asks first: cancelled (Escape), nothing happens; confirmed, the key is gone.
    await page.getByRole("link", { name: "API keys" }).click();
    await page.getByRole("button", { name: "Revoke Production server" }).click();
    const dialog = page.getByRole("dialog", { name: "Revoke “Production server”?" });
    await dialog.waitFor();
    await screen(page, "api-key-revoke-confirm");
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    expect(await page.getByRole("row", { name: /Production server/ }).count()).toBe(1);
    await page.getByRole("button", { name: "Revoke Production server" }).click();
    await dialog.getByRole("button", { name: "Revoke key" }).click();
    await page.getByText("No API keys yet").waitFor();
    expect((await fetch(`${h.server.url}/v1/agents`, { headers: { authorization: `Bearer ${secret}` } })).status).toBe(401);
  }, 30_000);

  test("the workspace switcher moves every call to the chosen workspace", async () => {
    const { page } = owner;
    const { access_token } = await tokensOf(page);
    const second = (await h.server.api.post("/v1/workspaces", { name: "Second shop" }, { token: access_token })).body;
    await h.server.api.post("/v1/api-keys", { name: "Only in the first", scope: "write" }, { token: access_token });
    await page.reload();
    await heading(page, "API keys");
    await page.getByRole("row", { name: /Only in the first/ }).waitFor();
    await page.getByLabel("Workspace").selectOption(second.id);
    await page.getByText("No API keys yet").waitFor();
    await screen(page, "workspace-switched");
    await page.reload(); // the choice is kept
    await page.getByText("No API keys yet").waitFor();
    expect(await page.getByLabel("Workspace").inputValue()).toBe(second.id);
    await page.getByLabel("Workspace").selectOption({ label: "Acme (owner)" });
    await page.getByRole("row", { name: /Only in the first/ }).waitFor();
  }, 30_000);

  test("dark theme: the toggle switches and is kept; the screen stays accessible", async () => {
    const { page } = owner;
    await page.getByRole("button", { name: "Switch to dark theme" }).click();
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe("rgb(18, 20, 23)");
    await screen(page, "api-keys-dark");
    await page.reload();
    await heading(page, "API keys");
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await page.getByRole("button", { name: "Switch to light theme" }).click();
  }, 30_000);

  test("keyboard: the skip link comes first, sections are reached by Tab, and the focus moves to the new screen's heading", async () => {
    const { page } = owner;
    await page.goto(`${h.server.url}/keys`);
    await heading(page, "API keys");
    await page.keyboard.press("Tab");
    expect(await page.evaluate(() => document.activeElement.textContent)).toBe("Skip to content");
    let reached = "";
    for (let i = 0; i < 40 && reached !== "Sessions"; i++) {
      await page.keyboard.press("Tab");
      reached = await page.evaluate(() => document.activeElement.textContent.trim());
    }
    expect(reached).toBe("Sessions");
    await page.keyboard.press("Enter");
    await heading(page, "Sessions");
    await page.waitForFunction(() => document.activeElement?.tagName === "H1");
  }, 30_000);

  test("sessions: listed with this browser marked; one is signed out after confirming; then everywhere, this one too", async () => {
    const { page } = owner;
    const elsewhere = (await h.server.api.post("/v1/auth/login", { email: EMAIL, password: PASSWORD })).body;
    const another = (await h.server.api.post("/v1/auth/login", { email: EMAIL, password: PASSWORD })).body;
    await page.reload();
    await heading(page, "Sessions");
    await page.getByText("This browser").waitFor();
    expect(await page.getByRole("row").count()).toBe(4); // a header and three sessions
    await screen(page, "sessions");
    await page.getByRole("button", { name: "Sign out", exact: true }).nth(1).click(); // the top bar's is the first
    await page.getByRole("dialog").getByRole("button", { name: "Sign it out" }).click();
    await page.waitForFunction(() => document.querySelectorAll("tbody tr").length === 2);

    await page.getByRole("button", { name: "Sign out everywhere" }).click();
    await screen(page, "sessions-sign-out-everywhere");
    await page.getByRole("dialog").getByRole("button", { name: "Sign out everywhere" }).click();
    await heading(page, "Sign in");
    expect(await page.evaluate(() => localStorage.getItem("parley.session"))).toBeNull();
    for (const pair of [elsewhere, another]) expect((await h.server.api.post("/v1/auth/refresh", { refresh_token: pair.refresh_token })).status).toBe(401);
  }, 30_000);

  test("sign-in: a wrong password is said so; the right one opens the page asked for", async () => {
    const { page } = owner;
    await page.goto(`${h.server.url}/audit-log`);
    await heading(page, "Sign in");
    expect(new URL(page.url()).searchParams.get("next")).toBe("/audit-log");
    await page.getByLabel("E-mail").fill(EMAIL);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("alert").waitFor();
    await screen(page, "sign-in-refused");
    await page.getByLabel("Password").fill(PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await heading(page, "Audit log");
  }, 30_000);

  test("password reset: asked for, opened from the logged link, a weak password refused on its field, then set and used", async () => {
    const { context, page } = await open("/login");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await heading(page, "Reset your password");
    await page.getByLabel("E-mail").fill(EMAIL);
    await page.getByRole("button", { name: "Send the link" }).click();
    await page.getByText("is on its way").waitFor();
    const link = logLink(/http:\/\/[^\s"]+\/reset-password\?token=[\w.-]+/);
    expect(link).toStartWith(`${h.server.url}/reset-password?token=`);
    await page.goto(link);
    await heading(page, "Choose a new password");
    await screen(page, "reset-password");
    await page.getByLabel("New password").fill("short");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.locator('input[name="password"][aria-invalid="true"]').waitFor();
    await page.getByLabel("New password").fill("a brand new password");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await heading(page, "Password changed");
    await screen(page, "reset-password-done");
    expect((await h.server.api.post("/v1/auth/login", { email: EMAIL, password: "a brand new password" })).status).toBe(200);
    await page.goto(link); // used once
    await page.getByLabel("New password").fill("yet another password");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.getByText("This link is invalid, already used or expired.").waitFor();
    await context.close();
  }, 30_000);

  test("invitation: the link asks the invitee to sign in, brings them back, and joins them to the workspace", async () => {
    const signedIn = (await h.server.api.post("/v1/auth/login", { email: EMAIL, password: "a brand new password" })).body;
    const acme = (await h.server.api.get("/v1/workspaces", { token: signedIn.access_token })).body.data.find((w: { name: string }) => w.name === "Acme");
    const inviter = (await h.server.api.post("/v1/auth/login", { email: EMAIL, password: "a brand new password", workspace_id: acme.id })).body;
    const invitee = await registerUser(h.server.api, "invitee");
    const invitation = (await h.server.api.post("/v1/workspaces/current/members", { email: invitee.email, role: "member" }, { token: inviter.access_token })).body;
    expect(invitation.accept_url).toStartWith(`${h.server.url}/invitations/`);
    const { context, page } = await open(new URL(invitation.accept_url).pathname);
    await heading(page, "You are invited");
    await screen(page, "invitation-signed-out");
    await page.getByRole("link", { name: "Sign in to accept" }).click();
    await page.getByLabel("E-mail").fill(invitee.email);
    await page.getByLabel("Password").fill(invitee.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Accept invitation" }).waitFor();
    await screen(page, "invitation");
    await page.getByRole("button", { name: "Accept invitation" }).click();
    await heading(page, "Invitation accepted");
    await page.getByText("You are now a member of Acme (member).").waitFor();
    await screen(page, "invitation-accepted");
    await page.getByRole("button", { name: "Open Acme" }).click();
    await heading(page, "API keys");
    expect(await page.getByLabel("Workspace").locator("option:checked").textContent()).toBe("Acme (member)");
    await context.close();
  }, 30_000);

  test("newsletter: the confirmation link confirms on a press; a bad unsubscribe link says so", async () => {
    const email = "reader@example.com";
    const subscribed = await h.server.api.post("/v1/newsletter/subscribe", { email, form_started_at: h.server.clock.now() - 10_000 });
    expect(subscribed.status).toBe(202);
    const link = logLink(/http:\/\/[^\s"]+\/newsletter\/confirm\?token=[\w.-]+/);
    const { context, page } = await open(new URL(link).pathname + new URL(link).search);
    await heading(page, "Confirm your subscription");
    await screen(page, "newsletter-confirm");
    await page.getByRole("button", { name: "Confirm my subscription" }).click();
    await page.getByText(`${email} is subscribed. Thank you!`).waitFor();
    await screen(page, "newsletter-confirmed");
    await page.goto(`${h.server.url}/newsletter/unsubscribe?token=nls_forged.token`);
    await page.getByRole("button", { name: "Unsubscribe" }).click();
    await page.getByText("This link is invalid or has expired.").waitFor();
    await screen(page, "newsletter-unsubscribe-invalid");
    await context.close();
  }, 30_000);

  test("360 px wide, in the system's dark theme: nothing overflows sideways, every control is reachable", async () => {
    const { context, page } = await open("/login", { width: 360, height: 740, colorScheme: "dark" });
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe("dark");
    await page.getByLabel("E-mail").fill(EMAIL);
    await page.getByLabel("Password").fill("a brand new password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await heading(page, "API keys");
    await page.getByLabel("Workspace").selectOption({ label: "Acme (owner)" });
    await page.getByRole("row", { name: /Only in the first/ }).waitFor();
    expect(await page.evaluate(OVERFLOWING)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screen(page, "api-keys-360px");
    await page.getByRole("link", { name: "Sessions" }).click();
    await heading(page, "Sessions");
    expect(await page.evaluate(OVERFLOWING)).toEqual([]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await screen(page, "sessions-360px");
    await context.close();
  }, 30_000);

  test("no console error or CSP violation anywhere, and axe-core finds nothing serious on any screen", async () => {
    await owner.context.close();
    expect(Object.keys(h.accessibility).length).toBeGreaterThan(20);
    h.expectClean();
  });
});
