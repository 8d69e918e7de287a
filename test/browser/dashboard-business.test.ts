// Money, brand and people in Chromium against a real server: a card top-up through a local Stripe (the
// page Checkout returns to polls the payment until it succeeds and the balance grows), an offline top-up
// the operator settles, usage charts; members invited, re-roled and removed; a widget made, its snippet
// copied and its preview linked; a brand edited with its live preview and a domain verified; and the
// operator's console (tenants, credit, suspend and resume, prices). Screenshots and axe-core on each screen.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { dashboardHarness, heading, signIn } from "../helpers/dashboard-browser.ts";
import { registerOperator, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { FakeStripe } from "../helpers/stripe-server.ts";

declare const document: any, navigator: any, getComputedStyle: (el: unknown) => any;

const stripe = new FakeStripe();
const h = dashboardHarness("business", { settings: { ...stripe.settings(), domainVerification: "skip" } });
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

let tenant: RegisteredUser;
let owner: { context: BrowserContext; page: Page };
/** The offline top-up the tenant asked for, settled later by the operator. */
let offlineId = "";

beforeAll(async () => {
  stripe.webhookUrl = `${h.server.url}/v1/payments/webhook/stripe`;
  tenant = await registerUser(h.server.api, "tenant");
});
afterAll(() => stripe.stop());

/** Signs in and waits to leave the sign-in page (its own <main h1> would satisfy signIn's wait at once). */
async function signInAs(page: Page, user: { email: string; password: string }) {
  await signIn(page, user.email, user.password);
  await page.waitForURL((url) => url.pathname !== "/login");
}

const api = (path: string) => h.server.api.get(path, { token: tenant.token }).then((res) => res.body);
const balanceText = (page: Page) => page.getByTestId("balance").textContent();

describe.skipIf(!chromiumAvailable())("money, brand and people", () => {
  test("billing: a card top-up goes to Stripe Checkout; back on /billing the payment is polled until it succeeds and the balance grows", async () => {
    owner = await h.open("/login");
    const { page, context } = owner;
    await signInAs(page, tenant);
    await page.getByRole("link", { name: "Billing" }).click();
    await heading(page, "Billing");
    expect(await balanceText(page)).toBe("$0.00");
    await page.getByText("No payments yet").waitFor();
    await screen(page, "billing-empty");

    // A refused amount names its field.
    await page.getByLabel("Amount (USD)").fill("0.10");
    await page.getByRole("button", { name: "Top up" }).click();
    await page.locator('input[name="amount"][aria-invalid="true"]').waitFor();
    await screen(page, "billing-topup-invalid");

    // The payer is sent to Checkout (a stand-in page: the test pays through the local Stripe instead).
    await context.route("https://checkout.stripe.com/**", (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><title>Checkout</title><h1>Pay</h1>" }));
    await page.getByLabel("Amount (USD)").fill("25");
    await page.getByRole("button", { name: "Top up" }).click();
    await page.waitForURL(/^https:\/\/checkout\.stripe\.com\/c\/pay\//);
    const sessionId = new URL(page.url()).pathname.split("/").pop()!;
    const paymentId = stripe.sessions.get(sessionId)!.client_reference_id as string;
    expect(paymentId).toMatch(/^txn_/);
    const paid = await stripe.pay(sessionId, { deliver: false });

    // Stripe sends the payer back before its webhook arrives: the page waits, then shows the outcome.
    await page.goto(`${h.server.url}/billing?payment=${paymentId}&result=success`);
    await page.getByText("Confirming your payment of $25.00").waitFor();
    await screen(page, "billing-return-pending");
    expect((await stripe.deliver(paid)).status).toBe(200);
    await page.getByText("Payment of $25.00 succeeded: $25.00 was added to your balance.").waitFor({ timeout: 10_000 });
    await page.getByTestId("balance").getByText("$25.00").waitFor();
    await page.getByRole("row", { name: new RegExp(paymentId) }).getByText("Succeeded").waitFor();
    await screen(page, "billing-return-succeeded");
    await page.getByRole("button", { name: "Dismiss" }).click();
    await page.waitForURL((url) => url.search === "");

    // An offline top-up is a request the operator settles.
    await page.getByLabel("How to pay").selectOption("offline");
    await page.getByLabel("Amount (USD)").fill("10");
    await page.getByRole("button", { name: "Top up" }).click();
    await page.getByText("Top-up of $10.00 requested").waitFor();
    offlineId = (await page.locator(".notice.success code").textContent())!;
    await page.getByRole("row", { name: new RegExp(offlineId) }).getByText("Pending").waitFor();

    // The automatic recharge is saved.
    await page.getByLabel("Recharge automatically").check();
    await page.getByLabel("When the balance falls below (USD)").fill("5");
    await page.getByLabel("Charge the card (USD)").fill("20");
    await page.getByRole("button", { name: "Save recharge" }).click();
    await page.getByText("Saved: automatic recharge is on.").waitFor();
    expect(await api("/v1/wallet/auto-recharge")).toMatchObject({ enabled: true, threshold: 5_000_000, amount: 2000 });
    await screen(page, "billing");
  }, 45_000);

  test("members: invited by e-mail with a role (the link shown to pass on), listed once accepted, re-roled, removed after confirming", async () => {
    const { page } = owner;
    await page.getByRole("link", { name: "Members" }).click();
    await heading(page, "Members");
    await page.getByRole("row", { name: /tenant/ }).waitFor();
    await page.getByRole("button", { name: "Invite member" }).click();
    await page.getByLabel("E-mail").fill("not an address");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.locator('input[name="email"][aria-invalid="true"]').waitFor();
    const invitee = await registerUser(h.server.api, "invitee");
    await page.getByLabel("E-mail").fill(invitee.email);
    await page.getByLabel("Role", { exact: true }).selectOption("viewer");
    await screen(page, "members-invite");
    await page.getByRole("button", { name: "Send invitation" }).click();
    const link = await page.getByLabel(`Invitation link for ${invitee.email}`).inputValue();
    expect(link).toMatch(new RegExp(`^${h.server.url}/invitations/[\\w.-]+$`));
    await page.getByRole("button", { name: "Copy link" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(link);
    await screen(page, "members-invited");
    await page.getByRole("button", { name: "Done" }).click();

    const accepted = await h.server.api.post(`/v1/workspaces/invitations/${link.split("/").pop()}/accept`, undefined, { token: invitee.token });
    expect(accepted.status).toBe(200);
    await page.reload();
    const row = page.getByRole("row", { name: new RegExp(invitee.email) });
    await row.waitFor();
    expect(await page.getByLabel("Role of invitee").inputValue()).toBe("viewer");
    await page.getByLabel("Role of invitee").selectOption("admin");
    const roleOf = async () => (await api("/v1/workspaces/current/members")).data.find((m: any) => m.email === invitee.email)?.role;
    for (let i = 0; i < 50 && (await roleOf()) !== "admin"; i++) await Bun.sleep(50);
    expect(await roleOf()).toBe("admin");
    await screen(page, "members");

    await page.getByRole("button", { name: "Remove invitee" }).click();
    const dialog = page.getByRole("dialog", { name: "Remove invitee?" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("button", { name: "Remove invitee" }).click();
    await dialog.getByRole("button", { name: "Remove member" }).click();
    await row.waitFor({ state: "detached" });
    expect((await api("/v1/workspaces/current/members")).data).toHaveLength(1);
  }, 30_000);

  test("widgets: created for an agent with a refused origin highlighted, snippet copied, preview linked, edited and deleted", async () => {
    const { page } = owner;
    const agent = await h.server.api.post("/v1/agents", { name: "Front desk" }, { token: tenant.token });
    expect(agent.status).toBe(201);
    await page.getByRole("link", { name: "Widgets" }).click();
    await heading(page, "Widgets");
    await page.getByText("No widgets yet").waitFor();
    await page.getByRole("button", { name: "New widget" }).click();
    await page.getByLabel("Name").fill("Shop chat");
    await page.getByLabel("Allowed origins").fill("https://shop.example.com\nftp://nope");
    await page.getByLabel("Greeting").fill("Hello! Ask me anything.");
    await page.getByLabel("Main colour").fill("#aa2200");
    await page.getByRole("button", { name: "Create widget" }).click();
    await page.locator('textarea[name="allowed_origins"][aria-invalid="true"]').waitFor();
    await screen(page, "widget-invalid");
    await page.getByLabel("Allowed origins").fill("https://shop.example.com");
    await page.getByRole("button", { name: "Create widget" }).click();

    const snippet = await page.getByLabel("Embed snippet of Shop chat").inputValue();
    const widget = (await api("/v1/widgets")).data[0];
    expect(widget).toMatchObject({ name: "Shop chat", allowed_origins: ["https://shop.example.com"], look: { greeting: "Hello! Ask me anything.", primary_color: "#aa2200" } });
    expect(snippet).toBe(widget.embed.snippet);
    await page.getByRole("button", { name: "Copy snippet" }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(snippet);
    const preview = page.getByRole("link", { name: /Open preview/ });
    expect(await preview.getAttribute("href")).toBe(widget.embed.preview_url);
    expect(await preview.getAttribute("target")).toBe("_blank");
    expect((await fetch(widget.embed.preview_url)).status).toBe(200);
    await screen(page, "widget-embed");
    await page.getByRole("button", { name: "Done" }).click();

    await page.getByRole("button", { name: "Edit Shop chat" }).click();
    await page.getByLabel("Name").fill("Shop helper");
    await page.getByRole("button", { name: "Save widget" }).click();
    await page.getByRole("row", { name: /Shop helper/ }).waitFor();
    expect(await page.getByRole("row", { name: /Shop helper/ }).textContent()).toContain("Front desk");
    await screen(page, "widgets");
    await page.getByRole("button", { name: "Delete Shop helper" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete widget" }).click();
    await page.getByText("No widgets yet").waitFor();
  }, 30_000);

  test("white-label: name, colours and logo show in the live preview as they are typed, then saved; a domain shows its TXT record and is verified, then detached", async () => {
    const { page } = owner;
    await page.getByRole("link", { name: "White-label" }).click();
    await heading(page, "White-label");
    await page.getByLabel("Product name").fill("Acme Voice");
    await page.getByLabel("Main colour").fill("#aa2200");
    const preview = page.getByTestId("brand-preview");
    await preview.locator(".wl-preview-name", { hasText: /^Acme Voice$/ }).waitFor();
    // The colours go in through an effect, just after the render.
    await preview.locator(".wl-preview-button").evaluate((el: any) => new Promise<void>((resolve) => (function check() { getComputedStyle(el).backgroundColor === "rgb(170, 34, 0)" ? resolve() : setTimeout(check, 20); })()));
    expect(await preview.evaluate((el: any) => getComputedStyle(el).getPropertyValue("--wl-primary").trim())).toBe("#aa2200");
    await page.getByLabel("Logo").setInputFiles({ name: "logo.png", mimeType: "image/png", buffer: Buffer.from(PNG, "base64") });
    await preview.locator("img.wl-preview-logo[src^='data:image/png']").waitFor();
    await page.getByLabel("Support e-mail").fill("help@acme.test");
    await page.getByRole("button", { name: "Save brand" }).click();
    await page.getByText("Brand saved.").waitFor();
    const brand = await api("/v1/white-label");
    expect(brand).toMatchObject({ product_name: "Acme Voice", colors: { primary: "#aa2200" }, support_email: "help@acme.test", logo: { content_type: "image/png" } });
    await preview.locator(`img.wl-preview-logo[src="${brand.logo_url}"]`).waitFor();
    await screen(page, "white-label");

    await page.getByLabel("Domain", { exact: true }).fill("bad domain!");
    await page.getByRole("button", { name: "Attach domain" }).click();
    await page.locator('input[name="domain"][aria-invalid="true"]').waitFor();
    await page.getByLabel("Domain", { exact: true }).fill("app.acme.test");
    await page.getByRole("button", { name: "Attach domain" }).click();
    const item = page.getByRole("listitem", { name: "app.acme.test" });
    await item.waitFor();
    const record = (await api("/v1/white-label")).domains[0];
    if (record.status === "pending") {
      await item.getByText(record.verification.value).waitFor();
      await screen(page, "white-label-domain-pending");
      await item.getByRole("button", { name: "Verify app.acme.test" }).click();
    }
    await item.getByText("Verified", { exact: true }).waitFor();
    expect((await api("/v1/white-label")).domains[0].status).toBe("verified");
    await screen(page, "white-label-domain-verified");
    await item.getByRole("button", { name: "Detach app.acme.test" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Detach domain" }).click();
    await page.getByText("No domains yet").waitFor();
  }, 30_000);

  test("operator console: only in the operator's workspace; tenants with balance and use, a credit settling the offline top-up, suspend with a reason and resume, new prices; the tenant's usage charts", async () => {
    // The tenant has no console.
    expect(await owner.page.getByRole("link", { name: "Operator" }).count()).toBe(0);
    await owner.page.goto(`${h.server.url}/operator`);
    await owner.page.getByText("For the instance operator").waitFor();

    const operator = await registerOperator(h.server);
    const { page } = await h.open("/login");
    await signInAs(page, operator);
    await page.getByRole("link", { name: "Operator" }).click();
    await heading(page, "Operator console");
    const name = (await api("/v1/workspaces/current")).name as string;
    const row = page.getByRole("row", { name: new RegExp(tenant.workspaceId) });
    await row.waitFor();
    expect(await row.textContent()).toContain("$25.00");
    await screen(page, "operator-tenants");

    // Crediting the pending offline top-up's amount with its id settles it.
    await page.getByRole("button", { name: `Credit or debit ${name}` }).click();
    const credit = page.getByRole("dialog", { name: `Credit or debit ${name}` });
    await credit.getByLabel("Amount (USD)").fill("10");
    await credit.getByLabel("Note").fill("Invoice 2026-114");
    await credit.getByLabel("Settles top-up (optional)").fill(offlineId);
    await screen(page, "operator-credit");
    await credit.getByRole("button", { name: "Credit wallet" }).click();
    await page.getByText(`${name}: credited $10.00; the balance is $35.00.`).waitFor();
    await row.getByText("$35.00").waitFor();
    expect((await api(`/v1/payments/${offlineId}`)).status).toBe("succeeded");

    // Suspending asks for a reason, and says what it does.
    await page.getByRole("button", { name: `Suspend ${name}` }).click();
    const suspend = page.getByRole("dialog", { name: `Suspend ${name}?` });
    await suspend.getByRole("button", { name: "Suspend workspace" }).click();
    await suspend.locator('input[name="reason"][aria-invalid="true"]').waitFor();
    await suspend.getByLabel("Reason").fill("Unpaid invoice");
    await screen(page, "operator-suspend");
    await suspend.getByRole("button", { name: "Suspend workspace" }).click();
    await page.getByText(`${name} is suspended.`).waitFor();
    await row.getByText(/Unpaid invoice/).waitFor();
    expect((await h.server.api.get("/v1/wallet", { token: tenant.token })).status).toBe(403);
    await page.getByRole("button", { name: `Resume ${name}` }).click();
    await page.getByText(`${name} is resumed.`).waitFor();
    expect((await h.server.api.get("/v1/wallet", { token: tenant.token })).status).toBe(200);

    // Prices: a complete list; a simulated number now costs 2.50 a month.
    await page.getByRole("link", { name: "Pricing" }).click();
    await heading(page, "Pricing");
    await page.getByLabel("Simulated number").fill("abc");
    await page.getByRole("button", { name: "Set prices" }).click();
    await page.locator('input[name="number_monthly.simulated"][aria-invalid="true"]').waitFor();
    await page.getByLabel("Simulated number").fill("2.5");
    await page.getByLabel("SIP, inbound").fill("0.005");
    await page.getByRole("button", { name: "Set prices" }).click();
    await page.getByText("Prices in force now.").waitFor();
    expect((await h.server.api.get("/v1/pricing")).body.current).toMatchObject({ number_monthly: { simulated: 2_500_000 }, per_minute: { telephony: { sip: { inbound: 5000 } } } });
    await page.getByRole("row", { name: /Simulated number.*\$2\.50/ }).first().waitFor();
    await screen(page, "operator-pricing");

    // The tenant buys a number: its fee shows in the usage chart and breakdown.
    const bought = await h.server.api.post("/v1/phone-numbers/buy", { number: "+15125550100" }, { token: tenant.token });
    expect(bought.status).toBe(201);
    await owner.page.goto(`${h.server.url}/usage`);
    await heading(owner.page, "Usage");
    await owner.page.getByText("Spent $2.50").waitFor();
    await owner.page.getByRole("row", { name: /Phone numbers \(simulated\).*\$2\.50/ }).waitFor();
    await owner.page.getByText("Spend by day as a table").click();
    // The fee's day is the purchase's (UTC, the workspace's zone): a run that crosses midnight after buying still finds it.
    const feeDay = String(bought.body.created_at).slice(0, 10);
    expect(await owner.page.getByRole("row", { name: new RegExp(feeDay) }).textContent()).toContain("$2.50");
    expect(await owner.page.locator(".bar-chart-plot .bar-chart-bar").count()).toBe(30);
    await screen(owner.page, "usage");
  }, 45_000);

  test("360 px and dark: billing and usage fit the width and stay accessible", async () => {
    const { page } = await h.open("/login", { width: 360, height: 740, colorScheme: "dark" });
    await signInAs(page, tenant);
    for (const [path, title] of [["/billing", "Billing"], ["/usage", "Usage"], ["/white-label", "White-label"]]) {
      await page.goto(`${h.server.url}${path}`);
      await heading(page, title);
      await page.locator(".loading").first().waitFor({ state: "detached" });
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      await screen(page, `${path.slice(1)}-360-dark`);
    }
  }, 30_000);

  test("no console errors, no CSP violations, no serious accessibility findings", () => {
    h.expectClean();
  });
});

const screen = (page: Page, name: string) => h.screen(page, name);
