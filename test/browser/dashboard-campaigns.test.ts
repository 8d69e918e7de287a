// The campaign screens' settings and contacts in Chromium against a real server: a new campaign with
// calling hours, retries and a do-not-call list (an unknown time zone refused on its field first); its
// settings edited while a draft (a window ending before it starts refused on its field); its contacts
// uploaded (the do-not-call number refused) and listed 50 at a time with "Load more" and a state filter;
// started on the simulated carrier, the list following the states. Light, then 360 px and dark.
import { describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { callingAgent } from "../helpers/campaigns.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { dashboardHarness, heading, overflowing, signIn, waitForFocus } from "../helpers/dashboard-browser.ts";
import { createKey, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { ShiftedClock } from "../helpers/server.ts";

// Page-side code (run by page.evaluate) sees the browser's globals; the suite is typed without the DOM library.
declare const document: any;

// Real time: the dispatcher paces calls by the server's clock (a clock standing still would dial one and wait).
const h = dashboardHarness("campaigns", { clock: new ShiftedClock() });
const CONTACTS = 60;

/** Elements of the screen reaching past 360 px, but for those inside frames that scroll sideways (tables). */

describe.skipIf(!chromiumAvailable())("campaign settings and contacts in Chromium", () => {
  let user: RegisteredUser;
  let key: string;
  let owner: { context: BrowserContext; page: Page };
  let campaignId: string;
  const api = {
    get: (path: string) => h.server.api.get(path, { token: key }),
    patch: (path: string, body: unknown) => h.server.api.patch(path, body, { token: key }),
  };
  const contactRows = (page: Page) => page.getByRole("table", { name: "Contacts of the campaign" }).locator("tbody tr");
  /**
   * Reads the remaining pages. While a run's counters move, the list's first page is read again, which
   * drops pages read before it; clicking again then reads them anew.
   */
  const loadAll = async (page: Page) => {
    const rows = contactRows(page);
    for (let i = 0; i < 20 && (await rows.count()) < CONTACTS; i++) {
      await page.getByRole("button", { name: "Load more" }).click({ timeout: 5_000 }).catch(() => {});
      await rows.nth(CONTACTS - 1).waitFor({ timeout: 2_000 }).catch(() => {});
    }
    expect(await rows.count()).toBe(CONTACTS);
  };

  test("a new campaign with calling hours, retries and a do-not-call list; an unknown time zone is refused on its field", async () => {
    user = await registerUser(h.server.api, "campaigner");
    key = (await createKey(h.server.api, user.token, "admin")).secret;
    await callingAgent(h.server.api, key);
    owner = await h.open("/login");
    const { page } = owner;
    await signIn(page, user.email, user.password);
    await page.goto(`${h.server.url}/campaigns`);
    await heading(page, "Campaigns");
    await page.getByRole("button", { name: "New campaign" }).click();
    await page.getByLabel("Name").fill("Evening renewals");
    await page.getByLabel("Agent").selectOption({ label: "Campaign agent" });
    await page.getByLabel("Simultaneous calls").fill("20");
    await page.getByLabel("Calls per minute").fill("6000");
    await page.getByLabel("Call only on these days and hours").check();
    await page.getByLabel("Sat", { exact: true }).check();
    await page.getByLabel("Time zone", { exact: true }).fill("Mars/Olympus_Mons");
    await page.getByLabel("Voicemail").check();
    await page.getByLabel("Attempts in total").fill("3");
    await page.getByLabel("Wait between attempts (minutes)").fill("30");
    await page.getByLabel("Do-not-call list").fill("+14155550199");
    await page.getByRole("button", { name: "Create campaign" }).click();
    const zone = page.locator('input[name="window.timezone"][aria-invalid="true"]');
    await zone.waitFor();
    await waitForFocus(zone);
    expect(await page.locator(".ops-fieldset.invalid > legend").textContent()).toBe("Calling hours");
    await h.screen(page, "campaign-create-invalid");

    await page.getByLabel("Time zone", { exact: true }).fill("America/New_York");
    await page.getByRole("button", { name: "Create campaign" }).click();
    await heading(page, "Evening renewals");
    campaignId = new URL(page.url()).pathname.split("/").pop()!;
    const campaign = (await api.get(`/v1/campaigns/${campaignId}`)).body;
    expect(campaign).toMatchObject({
      concurrency: 20,
      window: { days: [1, 2, 3, 4, 5, 6], start: "09:00", end: "17:00", timezone: "America/New_York", contact_timezone: true },
      retry: { on: ["no_answer", "busy", "voicemail"], max_attempts: 3, delay_minutes: 30 },
      do_not_call: ["+14155550199"],
      start_at: null,
      end_at: null,
    });
    const settings = page.getByRole("region", { name: "Settings" });
    expect(await settings.textContent()).toContain("Mon, Tue, Wed, Thu, Fri, Sat, 09:00–17:00 (America/New_York");
    expect(await settings.textContent()).toContain("Up to 3 attempts, 30 min apart, after no answer, busy, voicemail");
    await page.getByText("No contacts yet").waitFor();
    await h.screen(page, "campaign-draft");
  }, 30_000);

  test("a draft's settings edited: a window ending before it starts is refused on its field, then the hours are dropped and retries turned off", async () => {
    const { page } = owner;
    await page.getByRole("button", { name: "Edit settings" }).click();
    const form = page.getByRole("form", { name: "Settings" });
    expect(await form.getByLabel("Time zone", { exact: true }).inputValue()).toBe("America/New_York");
    await form.getByLabel("Until").fill("08:00");
    await form.getByRole("button", { name: "Save settings" }).click();
    const end = form.locator('input[name="window.end"][aria-invalid="true"]');
    await end.waitFor();
    expect(await form.getByRole("alert").textContent()).toContain("highlighted field");
    expect(await form.locator(".field.invalid .field-error").textContent()).toContain("later than window.start");
    await h.screen(page, "campaign-edit-invalid");

    await form.getByLabel("Call only on these days and hours").uncheck();
    await form.getByLabel("Attempts in total").fill("1");
    await form.getByRole("button", { name: "Save settings" }).click();
    await form.waitFor({ state: "detached" });
    const settings = page.getByRole("region", { name: "Settings" });
    await settings.getByText("No retries").waitFor();
    expect(await settings.textContent()).toContain("Any time");
    expect((await api.get(`/v1/campaigns/${campaignId}`)).body).toMatchObject({ window: null, retry: { max_attempts: 1 }, concurrency: 20 });
  }, 30_000);

  test("contacts: uploaded (the do-not-call number refused), listed 50 at a time with Load more, filtered by state, then followed through a run", async () => {
    const { page } = owner;
    const numbers = Array.from({ length: CONTACTS }, (_, i) => `+1415555${String(2000 + i).padStart(4, "0")}`);
    const csv = `phone,first_name\n${numbers.map((n, i) => `${n},Person ${i}`).join("\n")}\n+14155550199,Never\n`;
    await page.getByLabel("Contacts file (CSV)").setInputFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Upload contacts" }).click();
    await page.getByText(`${CONTACTS + 1} rows read: ${CONTACTS} accepted, 1 rejected.`).waitFor();
    expect(await page.getByRole("table", { name: "Rejected rows" }).textContent()).toContain("On the do-not-call list");

    const rows = contactRows(page);
    await rows.nth(49).waitFor();
    expect(await rows.count()).toBe(50);
    expect(await rows.first().textContent()).toContain("Waiting");
    await loadAll(page);
    await page.getByRole("button", { name: "Load more" }).waitFor({ state: "detached" });
    const listed = await rows.locator("th").allTextContents();
    expect(new Set(listed).size).toBe(CONTACTS);
    expect(listed.sort()).toEqual([...numbers].sort());
    await h.screen(page, "campaign-contacts");

    await page.getByLabel("Show").selectOption({ label: "Completed" });
    await page.getByText("No contact is “Completed”").waitFor();

    // The simulated callees answer and hang up soon after.
    expect((await api.patch(`/v1/campaigns/${campaignId}`, { simulation: { behaviour: "hang_up", hang_up_after_ms: 200, ring_ms: 20 } })).status).toBe(200);
    await page.getByRole("button", { name: "Start" }).click();
    // The list follows the run (read again as the polled counters move), with no reload.
    await rows.first().waitFor({ timeout: 30_000 });
    expect(await rows.first().locator("td:nth-of-type(2)").textContent()).toStartWith("Completed");
    // The whole list runs through: every contact completed, the filter showing all of them.
    const done = async () => (await api.get(`/v1/campaigns/${campaignId}/stats`)).body;
    for (let i = 0; i < 90 && (await done()).counts?.completed !== CONTACTS; i++) await Bun.sleep(500);
    expect((await done()).counts?.completed).toBe(CONTACTS);
    // Each contact links to its call.
    const call = rows.first().getByRole("link");
    expect(await call.textContent()).toMatch(/^call_/);
    expect(await page.getByRole("button", { name: "Edit settings" }).count()).toBe(0);
    await h.screen(page, "campaign-running-contacts");
    await call.click();
    await page.waitForURL((url) => url.pathname.startsWith("/calls/"));
  }, 60_000);

  test("360 px wide and dark: the campaign page fits, with nothing wider than the screen outside scrolling frames", async () => {
    const { context, page } = await h.open(`/login`, { width: 360, height: 740, colorScheme: "dark" });
    await signIn(page, user.email, user.password);
    await page.goto(`${h.server.url}/campaigns/${campaignId}`);
    await heading(page, "Evening renewals");
    await contactRows(page).first().waitFor();
    expect(await overflowing(page)).toEqual([]);
    await h.screen(page, "campaign-360px-dark");
    await page.goto(`${h.server.url}/campaigns`);
    await page.getByRole("button", { name: "New campaign" }).click();
    await page.getByLabel("Call only on these days and hours").check();
    await page.getByLabel("Time zone", { exact: true }).waitFor();
    expect(await overflowing(page)).toEqual([]);
    await h.screen(page, "campaign-create-360px-dark");
    await context.close();
  }, 30_000);

  test("no console error or CSP violation, and axe-core finds nothing serious on any screen", async () => {
    await owner.context.close();
    h.expectClean();
  });
});
