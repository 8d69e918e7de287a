// A newcomer's first hour in Chromium against a real server (issue 34, dashboard items 1–4): refusals in
// words on the forms people type in (request ids only under "Details"), sign-up landing on "Getting
// started" whose steps tick off from what the workspace really holds, a first call from an agent with no
// number (an error in words with a way out, then one click for a simulated number), and billing that says
// what applies on this instance (free calls are not "refused at $0.00", no card where there is no Stripe,
// a reference that never splits).
import { describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { pocketsphinxAvailability } from "../../src/voice/speech/builtin/index.ts";
import { chromiumAvailable, launchChromium } from "../helpers/chromium.ts";
import { dashboardHarness, heading, overflowing, signIn, tokensOf } from "../helpers/dashboard-browser.ts";
import { registerOperator, registerUser } from "../helpers/fixtures.ts";

const EMAIL = "nina@example.com";
const PASSWORD = "a long enough password";

const h = dashboardHarness("newcomer");
let owner: { context: BrowserContext; page: Page };

/** The error under the control named `name`. */
const fieldError = (page: Page, name: string) => page.locator(`.field:has([name="${name}"]) .field-error`).textContent();
/** What a person sees of the page (a closed "Details" is not rendered, so not part of it). */
const visibleText = (page: Page): Promise<string> => page.locator("body").innerText();
const step = (page: Page, title: string) => page.getByRole("listitem").filter({ has: page.getByRole("heading", { name: new RegExp(title) }) });
const api = async (page: Page) => {
  const { access_token } = await tokensOf(page);
  return {
    get: (path: string) => h.server.api.get(path, { token: access_token }).then((r) => r.body),
    post: (path: string, body: unknown) => h.server.api.post(path, body, { token: access_token }),
  };
};
/** How many lines an element's text takes (an id split at the line's end takes two). */
const lineBoxes = (page: Page, selector: string) => page.locator(selector).evaluate((el: any) => el.getClientRects().length);

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

  test("first call: the form says the agent has no number, a call anyway is refused in words with a link to Numbers, one click gets and assigns a simulated number, and the call completes", async () => {
    const { page } = owner;
    await step(page, "Place a simulated call").getByRole("link", { name: "Place a call" }).click();
    await heading(page, "Calls");
    const form = page.getByRole("form", { name: "Place a call" });
    await form.getByText("It has no phone number of its own yet.").waitFor();
    expect(await form.innerText()).not.toContain("assigned number");
    await h.screen(page, "place-call-no-number");

    await form.getByRole("button", { name: "Call", exact: true }).click();
    const alert = form.getByRole("alert");
    await alert.getByText("This agent has no phone number to call from.").waitFor();
    const said = await alert.innerText();
    expect(said).not.toContain("POST");
    expect(said).not.toContain("pass `from`");
    await alert.getByRole("link", { name: "Numbers" }).waitFor();
    await h.screen(page, "place-call-refused");

    await form.getByRole("button", { name: "Get a number and assign it" }).click();
    await form.getByText(/^\+1\d{10} is now Front desk's number, on the built-in simulated carrier\.$/).waitFor();
    const client = await api(page);
    const [number] = (await client.get("/v1/phone-numbers")).data;
    expect(number).toMatchObject({ carrier: "simulated", agent_id: expect.stringMatching(/^agent_/) });
    await form.getByText(`It calls from ${number.number}, its number.`).waitFor();
    await h.screen(page, "place-call-number-assigned");

    await form.getByRole("button", { name: "Call", exact: true }).click();
    await page.getByRole("button", { name: "Erase content" }).waitFor({ timeout: 60_000 });
    expect(await page.locator(".calls-status").first().textContent()).toBe("completed");
  }, 90_000);

  test.skipIf(!pocketsphinxAvailability().available)("getting started ticks off a browser call, an API key and a webhook endpoint (refused in words first) as they are made", async () => {
    const { page } = owner;
    // The browser call, in a Chromium with a fake microphone, from the step's own link.
    const voice: Browser = await launchChromium(["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required"]);
    try {
      const talk = await (await voice.newContext({ viewport: { width: 1200, height: 800 } })).newPage();
      await talk.goto(`${h.server.url}/login?next=/getting-started`);
      await signIn(talk, EMAIL, PASSWORD);
      await heading(talk, "Getting started");
      await step(talk, "Talk to it in the browser").getByRole("link", { name: "Talk to Front desk" }).click();
      await heading(talk, "Front desk");
      await talk.getByRole("button", { name: "Start call" }).click();
      await talk.getByRole("status").filter({ hasText: "In the call" }).waitFor({ timeout: 15_000 });
      await talk.getByRole("button", { name: "Hang up" }).click();
      await talk.getByRole("status").filter({ hasText: "Call ended" }).waitFor({ timeout: 10_000 });
    } finally {
      await voice.close();
    }

    // An API key: a name left empty is refused in words, then the key is made.
    await page.getByRole("link", { name: "API keys" }).click();
    await heading(page, "API keys");
    await page.getByRole("button", { name: "New key" }).click();
    await page.getByRole("button", { name: "Create key" }).click();
    await page.locator('input[name="name"][aria-invalid="true"]').waitFor();
    expect(await fieldError(page, "name")).toBe("Fill this in.");
    await page.getByLabel("Name").fill("Bakery server");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.getByRole("button", { name: "I have stored it" }).click();

    // A webhook endpoint: an address that is no URL is refused in words, then the endpoint is added.
    await page.getByRole("link", { name: "Webhooks" }).click();
    await heading(page, "Webhooks");
    await page.getByRole("button", { name: "New endpoint" }).click();
    await page.getByLabel("URL").fill("bakery.example.com/hooks");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.locator('input[name="url"][aria-invalid="true"]').waitFor();
    expect(await fieldError(page, "url")).toBe("Enter a whole address, starting with https://.");
    await page.getByLabel("URL").fill("https://bakery.example.com/hooks");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("button", { name: "I have stored it" }).click();

    await page.getByRole("link", { name: "Getting started" }).click();
    await heading(page, "Getting started");
    await page.getByTestId("start-progress").getByText("5 of 5 done").waitFor();
    for (const title of ["Create an agent", "Talk to it", "Place a simulated call", "Create an API key", "Receive webhooks"]) expect(await step(page, title).innerText()).toContain("Done");
    await h.screen(page, "getting-started-done");
    await page.setViewportSize({ width: 360, height: 740 });
    expect(await overflowing(page)).toEqual([]);
    await h.screen(page, "getting-started-360px");
    await page.setViewportSize({ width: 1200, height: 800 });
  }, 90_000);

  test("an agent without a number of its own, in a workspace that has one, calls from the number chosen under From", async () => {
    const { page } = owner;
    const client = await api(page);
    const [number] = (await client.get("/v1/phone-numbers")).data;
    const second = await client.post("/v1/agents", { name: "Night line" });
    expect(second.status).toBe(201);
    await page.goto(`${h.server.url}/calls?place=1`);
    const form = page.getByRole("form", { name: "Place a call" });
    await form.getByLabel("Agent").selectOption({ label: "Night line" });
    await form.getByText("It has no phone number of its own yet.").waitFor();
    const from = form.getByLabel("From");
    expect(await from.inputValue()).toBe(number.number);
    expect(await form.innerText()).toContain("Night line has no number of its own: this call comes from the one chosen here.");
    await h.screen(page, "place-call-from");
    await form.getByLabel("What the simulated person says").fill("Goodbye");
    await form.getByRole("button", { name: "Call", exact: true }).click();
    await page.waitForURL(/\/calls\/call_/);
    const call = await client.get(`/v1/calls/${new URL(page.url()).pathname.split("/").pop()}`);
    expect(call).toMatchObject({ agent_id: second.body.id, from: number.number });
  }, 30_000);

  test("billing: free calls are not 'refused at $0.00', there is no card without Stripe, an invoice reference never splits; with prices set, what is refused is said in red", async () => {
    const { page } = owner;
    await page.getByRole("link", { name: "Billing" }).click();
    await heading(page, "Billing");
    expect(await page.getByTestId("balance").textContent()).toBe("$0.00");
    // The call above completed at $0.00: on an instance without prices nothing is refused.
    expect(await page.getByTestId("balance-meaning").textContent()).toBe("Calls and phone numbers are free on this instance: nothing is charged, whatever the balance.");
    expect(await page.getByTestId("balance").getAttribute("class")).not.toContain("status-bad");
    expect(await visibleText(page)).not.toContain("refused");

    // No Stripe here: no "Card" that would silently become an invoice request.
    expect(await page.getByLabel("How to pay").count()).toBe(0);
    expect(await page.getByTestId("no-card").textContent()).toContain("This instance takes no card payments");
    await page.getByText("Automatic recharges charge a saved card, and this instance takes no card payments.").waitFor();
    await page.getByLabel("Amount (USD)").fill("25");
    await page.getByRole("button", { name: "Request an invoice" }).click();
    await page.getByText("Top-up of $25.00 requested").waitFor();
    const reference = ".notice.success code";
    expect(await page.locator(reference).textContent()).toMatch(/^txn_\w+$/);
    // The reference stays whole wherever the line breaks: in both columns' width, and at 360 px.
    for (const width of [1200, 1000, 900, 360]) {
      await page.setViewportSize({ width, height: 800 });
      expect({ width, lines: await lineBoxes(page, reference) }).toEqual({ width, lines: 1 });
    }
    await page.setViewportSize({ width: 1200, height: 800 });
    await h.screen(page, "billing-free");

    // The operator prices simulated calls and numbers: at $0.00 those are now refused, and the page says so.
    const operator = await registerOperator(h.server);
    const free = { inbound: 0, outbound: 0 };
    const priced = await h.server.api.put(
      "/v1/admin/pricing",
      {
        per_minute: { telephony: { simulated: { inbound: 0, outbound: 20_000 }, sip: free, twilio: free, telnyx: free }, browser_voice: 0, speech: { builtin: 0, provider: 0 }, llm: { builtin: 0, provider: 0 } },
        number_monthly: { simulated: 1_000_000, sip: 0, twilio: 0, telnyx: 0 },
      },
      { token: operator.token },
    );
    expect(priced.status).toBe(200);
    await page.reload();
    await heading(page, "Billing");
    const meaning = page.getByTestId("balance-meaning");
    await meaning.getByText("Calls and numbers with a price below are refused until you top up; free ones still start.").waitFor();
    expect(await meaning.getAttribute("class")).toContain("status-bad");
    const prices = page.getByRole("list", { name: "Prices on this instance" });
    expect((await prices.getByRole("listitem").allTextContents()).sort()).toEqual(["Simulated number: $1.00 a month", "Simulated, outbound: $0.02 a minute"]);
    await h.screen(page, "billing-priced");

    // Refused for real: a call needs a minute's worth, and the refusal reads as words.
    const client = await api(page);
    const [number] = (await client.get("/v1/phone-numbers")).data;
    const refusedCall = await client.post("/v1/calls/outbound", { agent_id: number.agent_id, to: "+14155550123", simulation: { lines: ["Bye"] } });
    expect(refusedCall.status).toBe(402);
  }, 60_000);

  test("no console error or CSP violation, and axe-core finds nothing serious on any screen", async () => {
    await owner.context.close();
    h.expectClean();
  });
});
