// The dashboard's operations screens in Chromium against a real server: a number bought, assigned to an
// agent and released, another relabelled with its inbound settings changed; a carrier connection added
// (its secret masked) and removed, another renamed with its trunk changed and its password replaced; a campaign whose CSV
// has one bad row (listed as rejected), run to completion on the simulated carrier with its counters
// moving, and its results downloaded; a call scheduled and canceled; and settings → webhooks: an endpoint
// on a loopback receiver that answers 500 until its delivery dead-letters (the server's clock moved
// through the retry schedule), then, the receiver fixed, the dead letter replayed from the Failed tab
// and shown delivered, then the endpoint's URL, events and description changed. Each edit is first
// refused by the server with the field highlighted. The server's clock is real time that the test can jump forward (ShiftedClock).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { BrowserContext, Page } from "playwright-core";
import { callingAgent } from "../helpers/campaigns.ts";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { dashboardHarness, heading, overflowing, signIn } from "../helpers/dashboard-browser.ts";
import { createKey, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { ShiftedClock } from "../helpers/server.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { settle } from "../helpers/webhooks.ts";

// Page-side code (run by page.evaluate) sees the browser's globals; the suite is typed without the DOM library.
declare const document: any;

const HOUR = 3_600_000;
const h = dashboardHarness("operations", { clock: new ShiftedClock() });

describe.skipIf(!chromiumAvailable())("operations screens in Chromium", () => {
  let user: RegisteredUser;
  /** An admin API key for setup: keys never expire, however far the clock moves. */
  let key: string;
  let owner: { context: BrowserContext; page: Page };
  let campaignId: string;
  let calling: { numberId: string; number: string };
  const api = {
    get: (path: string) => h.server.api.get(path, { token: key }),
    post: (path: string, body: unknown) => h.server.api.post(path, body, { token: key }),
    delete: (path: string) => h.server.api.delete(path, { token: key }),
    patch: (path: string, body: unknown) => h.server.api.patch(path, body, { token: key }),
  };
  /** What sticks out past a 360 px screen, outside the frames that scroll sideways. */
  const section = (page: Page, name: string) => page.getByRole("navigation", { name: "Sections" }).getByRole("link", { name, exact: true }).click();

  test("phone numbers: one bought from the simulated carrier, assigned to an agent, released after confirming", async () => {
    user = await registerUser(h.server.api, "operator");
    key = (await createKey(h.server.api, user.token, "admin")).secret;
    calling = await callingAgent(h.server.api, key); // "Campaign agent", with a 415 number as its caller id
    expect((await h.server.api.post("/v1/agents", { name: "Front desk", first_message: "Hello." }, { token: key })).status).toBe(201);
    owner = await h.open("/login");
    const { page } = owner;
    await signIn(page, user.email, user.password);
    await section(page, "Numbers");
    await heading(page, "Phone numbers");
    await page.getByRole("row", { name: /\+1415/ }).waitFor();
    await h.screen(page, "numbers");

    await page.getByRole("button", { name: "Buy a number" }).click();
    await page.getByLabel("Area code").fill("212");
    await page.getByRole("button", { name: "Search" }).click();
    const buy = page.getByRole("button", { name: /^Buy \+1212/ }).first();
    await buy.waitFor();
    await h.screen(page, "numbers-buy");
    const number = (await buy.getAttribute("aria-label"))!.replace("Buy ", "");
    await buy.click();
    await page.getByText(`${number} is yours.`).waitFor();
    const row = page.getByRole("row", { name: new RegExp(`\\${number}`) });
    await row.getByLabel(`Agent for ${number}`).selectOption({ label: "Front desk" });
    await row.getByRole("button", { name: "Assign" }).click();
    await page.getByText(`${number} now goes to Front desk.`).waitFor();
    const owned = (await api.get("/v1/phone-numbers?limit=100")).body.data.find((n: { number: string }) => n.number === number);
    const agents = (await api.get("/v1/agents?limit=100")).body.data;
    expect(owned.agent_id).toBe(agents.find((a: { name: string }) => a.name === "Front desk").id);
    await h.screen(page, "numbers-assigned");

    await row.getByRole("button", { name: `Release ${number}` }).click();
    await page.getByRole("dialog", { name: `Release ${number}?` }).waitFor();
    await h.screen(page, "numbers-release-confirm");
    await page.getByRole("button", { name: "Release number" }).click();
    await page.getByText(`${number} was released.`).waitFor();
    await row.waitFor({ state: "detached" }); // the list reloads after the notice
    expect((await api.get(`/v1/phone-numbers/${owned.id}`)).status).toBe(404);
  }, 30_000);

  test("phone numbers: one edited: a label too long refused (highlighted), then relabelled, its inbound calls turned off and given a variable", async () => {
    const { page } = owner;
    const { number, numberId } = calling;
    await section(page, "Numbers");
    await heading(page, "Phone numbers");
    const row = page.getByRole("row", { name: new RegExp(`\\${number}`) });
    await row.getByRole("button", { name: `Edit ${number}` }).click();
    const form = page.getByRole("form", { name: `Edit ${number}` });
    await form.getByLabel("Label", { exact: true }).fill("x".repeat(101));
    await form.getByRole("button", { name: "Save changes" }).click();
    await form.locator('input[name="label"][aria-invalid="true"]').waitFor();
    await h.screen(page, "number-edit-invalid");
    await form.getByLabel("Label", { exact: true }).fill("Sales line");
    await form.getByLabel("Answer inbound calls").uncheck();
    await form.getByRole("button", { name: "Add a variable" }).click();
    await form.getByLabel("Variable 1 name").fill("department");
    await form.getByLabel("Variable 1 value").fill("sales");
    await h.screen(page, "number-edit");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByText(`Saved the changes to ${number}.`).waitFor();
    await form.waitFor({ state: "detached" });
    await row.getByText("Sales line").waitFor();
    expect(await row.textContent()).toContain("Rejected");
    expect(await row.textContent()).toContain("1 variable");
    const saved = (await api.get(`/v1/phone-numbers/${numberId}`)).body;
    expect(saved.label).toBe("Sales line");
    expect(saved.inbound).toEqual({ enabled: false, variables: { department: "sales" } });

    // Opened again, the form shows what was saved; the variable removed and calls answered again.
    await row.getByRole("button", { name: `Edit ${number}` }).click();
    expect(await form.getByLabel("Variable 1 value").inputValue()).toBe("sales");
    expect(await form.getByLabel("Answer inbound calls").isChecked()).toBe(false);
    await form.getByRole("button", { name: "Remove variable 1" }).click();
    await form.getByLabel("Answer inbound calls").check();
    await form.getByRole("button", { name: "Save changes" }).click();
    await form.waitFor({ state: "detached" });
    await row.getByText("Answered").waitFor();
    expect((await api.get(`/v1/phone-numbers/${numberId}`)).body.inbound).toEqual({ enabled: true, variables: {} });
  }, 30_000);

  test("carrier connections: a SIP trunk refused without its trunk (the field highlighted), then added with its password masked, then removed", async () => {
    const { page } = owner;
    await section(page, "Carriers");
    await heading(page, "Carrier connections");
    await page.getByRole("row", { name: /Simulated carrier/ }).waitFor();
    await page.getByRole("button", { name: "New connection" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Office PBX");
    await page.getByLabel("Kind").selectOption("sip");
    await page.getByLabel("Listen port").fill("0");
    await page.getByLabel("Username").fill("parley");
    await page.getByLabel("Password").fill("trunk-password-7788");
    await page.getByRole("button", { name: "Add connection" }).click();
    await page.locator('input[name="settings.trunk"][aria-invalid="true"]').waitFor();
    await h.screen(page, "carrier-invalid");
    await page.getByLabel("Trunk").fill("127.0.0.1:5999");
    await page.getByRole("button", { name: "Add connection" }).click();
    const row = page.getByRole("row", { name: /Office PBX/ });
    await row.waitFor();
    expect(await row.textContent()).toContain("••••7788");
    expect(await page.getByText("trunk-password-7788").count()).toBe(0);
    await h.screen(page, "carriers");
    await row.getByRole("button", { name: "Remove Office PBX" }).click();
    await page.getByRole("button", { name: "Remove connection" }).click();
    await row.waitFor({ state: "detached" });
  }, 30_000);

  test("carrier connections: a SIP trunk edited: its trunk refused when cleared (highlighted), then renamed, the trunk changed and the password replaced (masked)", async () => {
    const { page } = owner;
    const created = await api.post("/v1/telephony/carriers", { name: "Branch PBX", kind: "sip", settings: { trunk: "127.0.0.1:5997", listen_port: 0 }, credentials: { username: "parley", password: "old-password-1122" } });
    expect(created.status).toBe(201);
    await section(page, "Numbers"); // away and back: the list is read again
    await section(page, "Carriers");
    await heading(page, "Carrier connections");
    await page.getByRole("row", { name: /Branch PBX/ }).getByRole("button", { name: "Edit Branch PBX" }).click();
    const form = page.getByRole("form", { name: "Edit “Branch PBX”" });
    expect(await form.getByLabel("Trunk").inputValue()).toBe("127.0.0.1:5997");
    const password = form.getByLabel("New password");
    expect(await password.inputValue()).toBe("");
    await form.getByText("Now ••••1122").waitFor();
    await form.getByLabel("Name", { exact: true }).fill("Branch office PBX");
    await form.getByLabel("Trunk").fill("");
    await form.getByRole("button", { name: "Save changes" }).click();
    await form.locator('input[name="settings.trunk"][aria-invalid="true"]').waitFor();
    await h.screen(page, "carrier-edit-invalid");
    await form.getByLabel("Trunk").fill("127.0.0.1:5996");
    await password.fill("new-password-4455");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Saved the changes to “Branch office PBX”.").waitFor();
    const row = page.getByRole("row", { name: /Branch office PBX/ });
    await row.getByText("127.0.0.1:5996").waitFor();
    expect(await row.textContent()).toContain("••••4455");
    expect(await page.getByText("password-4455").count()).toBe(0);
    await h.screen(page, "carrier-edited");
    const saved = (await api.get(`/v1/telephony/carriers/${created.body.id}`)).body;
    expect(saved.name).toBe("Branch office PBX");
    expect(saved.settings).toEqual({ trunk: "127.0.0.1:5996", listen_port: 0 });
    expect(saved.credentials).toEqual({ username: "••••", password: "••••4455" });
    expect((await api.delete(`/v1/telephony/carriers/${created.body.id}`)).status).toBe(204);
  }, 30_000);

  test("a campaign: created, its CSV uploaded with the bad row reported, run to completion with the counters moving, results downloaded", async () => {
    const { page } = owner;
    await section(page, "Campaigns");
    await heading(page, "Campaigns");
    await page.getByText("No campaigns yet").waitFor();
    await h.screen(page, "campaigns-empty");
    await page.getByRole("button", { name: "New campaign" }).click();
    await page.getByLabel("Name").fill("Spring renewals");
    await page.getByLabel("Agent").selectOption({ label: "Campaign agent" });
    await page.getByLabel("Simultaneous calls").fill("1");
    await page.getByLabel("Calls per minute").fill("6000");
    await h.screen(page, "campaign-create");
    await page.getByRole("button", { name: "Create campaign" }).click();
    await heading(page, "Spring renewals");
    const id = (campaignId = new URL(page.url()).pathname.split("/").pop()!);
    // The simulated callees answer and hang up soon after (as the API's campaign tests make short calls).
    expect((await api.patch(`/v1/campaigns/${id}`, { simulation: { behaviour: "hang_up", hang_up_after_ms: 300, ring_ms: 50 } })).status).toBe(200);

    const good = ["+14155550150", "+14155550151", "+14155550152", "+14155550153"];
    const csv = `phone,first_name\n${good.map((n, i) => `${n},Person ${i}`).join("\n")}\nnot a number,Nobody\n`;
    await page.getByLabel("Contacts file (CSV)").setInputFiles({ name: "contacts.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Upload contacts" }).click();
    await page.getByText("5 rows read: 4 accepted, 1 rejected.").waitFor();
    const rejected = page.getByRole("table", { name: "Rejected rows" }).getByRole("row", { name: /not a number/ });
    expect(await rejected.textContent()).toContain("Not a valid number");
    expect(await rejected.getByRole("cell").first().textContent()).toBe("6");
    const counter = (name: string) => page.locator(`[data-counter="${name}"] dd`).textContent();
    await page.locator('[data-counter="total"] dd', { hasText: /^4$/ }).waitFor();
    await h.screen(page, "campaign-uploaded");

    await page.getByRole("button", { name: "Start" }).click();
    await page.getByRole("button", { name: "Pause" }).waitFor();
    // The page polls while the campaign runs: the counters move without a reload.
    const seen = new Set<string>();
    for (let i = 0; i < 300 && (await counter("completed")) !== "4"; i++) {
      seen.add((await counter("completed"))!);
      await Bun.sleep(100);
    }
    expect(await counter("completed")).toBe("4");
    expect(seen.has("0")).toBe(true); // it started from nothing, and reached 4 with no reload
    await page.locator(".badge", { hasText: "completed" }).waitFor();
    expect(await page.getByRole("button", { name: "Pause" }).count()).toBe(0);
    await h.screen(page, "campaign-completed");

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download results" }).click()]);
    expect(download.suggestedFilename()).toBe("Spring-renewals-results.csv");
    const results = readFileSync((await download.path())!, "utf8").trim().split(/\r?\n/);
    expect(results[0]).toContain("first_name");
    expect(results[0]).toContain("status");
    expect(results).toHaveLength(5);
    for (const n of good) expect(results.find((line) => line.includes(n))).toContain("completed");

    await section(page, "Campaigns");
    const listed = page.getByRole("row", { name: /Spring renewals/ });
    expect(await listed.textContent()).toContain("4 of 4");
    await h.screen(page, "campaigns");
  }, 60_000);

  test("a scheduled call: refused without a number (highlighted), then scheduled for tomorrow and canceled after confirming", async () => {
    const { page } = owner;
    await section(page, "Schedules");
    await heading(page, "Scheduled calls");
    await page.getByText("No scheduled calls").waitFor();
    await page.getByRole("button", { name: "Schedule a call" }).click();
    await page.getByLabel("Agent").selectOption({ label: "Campaign agent" });
    const tomorrow = new Date(Date.now() + 24 * HOUR);
    const local = new Date(tomorrow.getTime() - tomorrow.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    await page.getByLabel("When").fill(local);
    await page.getByRole("button", { name: "Schedule call" }).click();
    await page.locator('input[name="to"][aria-invalid="true"]').waitFor();
    await h.screen(page, "schedule-invalid");
    await page.getByLabel("Number to call").fill("+14155550160");
    await page.getByRole("button", { name: "Schedule call" }).click();
    const row = page.getByRole("row", { name: /\+14155550160/ });
    await row.getByText("scheduled", { exact: true }).waitFor();
    await h.screen(page, "schedules");
    await row.getByRole("button", { name: "Cancel the call to +14155550160" }).click();
    await page.getByRole("button", { name: "Cancel schedule" }).click();
    await row.getByText("canceled", { exact: true }).waitFor();
    expect((await api.get("/v1/schedules")).body.data[0].status).toBe("canceled");
  }, 30_000);

  test("settings → webhooks: an endpoint whose receiver answers 500 until the delivery dead-letters; fixed, the dead letter is replayed from the Failed tab and delivered", async () => {
    const { page } = owner;
    const receiver = startReceiver(() => new Response("down for maintenance", { status: 500 }));
    try {
      await section(page, "Webhooks");
      await heading(page, "Webhooks");
      expect(new URL(page.url()).pathname).toBe("/settings/webhooks");
      await page.getByText("No endpoints yet").waitFor();
      await page.getByRole("button", { name: "New endpoint" }).click();
      await page.getByLabel("URL").fill(receiver.url);
      await h.screen(page, "webhook-create");
      await page.getByRole("button", { name: "Add endpoint" }).click();
      const secret = await page.getByLabel(`Signing secret of ${receiver.url}`).inputValue();
      expect(secret).toMatch(/^whsec_/);
      await h.screen(page, "webhook-secret");
      await page.getByRole("button", { name: "I have stored it" }).click();
      expect(await page.getByText(secret).count()).toBe(0);

      await page.getByRole("button", { name: `Send test to ${receiver.url}` }).click();
      await page.getByText("failed (HTTP 500)").waitFor();
      expect(receiver.requests).toHaveLength(1);
      await h.screen(page, "webhooks");

      // The retries (1 min … 24 h after the first attempt) all fail: the clock jumps through them.
      for (let i = 0; i < 30 && (await api.get("/v1/webhooks/failed")).body.data.length === 0; i++) {
        h.server.clock.advance(2 * HOUR);
        await settle(h.server);
      }
      expect(receiver.requests).toHaveLength(7);
      h.server.clock.advance(2 * HOUR); // past the circuit breaker's pause

      await page.getByRole("link", { name: "Deliveries" }).click();
      await heading(page, "Webhooks");
      await page.getByRole("row", { name: /500/ }).first().waitFor();
      await h.screen(page, "webhook-deliveries");
      await page.getByRole("link", { name: "Events" }).click();
      await page.getByRole("row", { name: /webhook\.test/ }).waitFor();
      await h.screen(page, "webhook-events");

      await page.getByRole("link", { name: "Failed" }).click();
      expect(new URL(page.url()).pathname).toBe("/settings/webhooks/failed");
      const row = page.getByRole("row", { name: /webhook\.test/ });
      await row.getByText("failed", { exact: true }).waitFor();
      expect(await row.textContent()).toContain(receiver.url);
      await h.screen(page, "webhooks-failed");
      receiver.respondWith(() => new Response("ok"));
      await row.getByRole("button", { name: /^Replay webhook\.test/ }).click();
      await row.getByText("delivered", { exact: true }).waitFor({ timeout: 15_000 });
      expect(receiver.requests).toHaveLength(8);
      expect(receiver.requests[7].headers["webhook-id"]).toBe(receiver.requests[0].headers["webhook-id"]);
      expect(await row.getByRole("button", { name: /Replay/ }).count()).toBe(0);
      await h.screen(page, "webhooks-replayed");
    } finally {
      receiver.stop();
    }
  }, 60_000);

  test("settings → webhooks: an endpoint edited: a URL with credentials refused (highlighted), then its URL, events and description changed", async () => {
    const { page } = owner;
    const [endpoint] = (await api.get("/v1/webhooks")).body.data;
    await section(page, "Webhooks");
    await heading(page, "Webhooks");
    await page.getByRole("button", { name: `Edit ${endpoint.url}` }).click();
    const form = page.getByRole("form", { name: `Edit ${endpoint.url}` });
    expect(await form.getByLabel("URL").inputValue()).toBe(endpoint.url);
    await form.getByLabel("URL").fill("https://user:secret@example.com/parley");
    await form.getByRole("button", { name: "Save changes" }).click();
    await form.locator('input[name="url"][aria-invalid="true"]').waitFor();
    expect(await form.textContent()).toContain("must not carry credentials");
    await h.screen(page, "webhook-edit-invalid");
    await form.getByLabel("URL").fill("https://example.com/parley");
    await form.getByRole("checkbox", { name: /call\.failed/ }).check();
    await form.getByLabel("Description").fill("Operations team");
    await form.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("Saved the changes to https://example.com/parley.").waitFor();
    const row = page.getByRole("row", { name: /example\.com\/parley/ });
    await row.getByText("Operations team").waitFor();
    expect(await row.textContent()).toContain("call.completed, call.failed");
    await h.screen(page, "webhook-edited");
    const saved = (await api.get(`/v1/webhooks/${endpoint.id}`)).body;
    expect(saved).toMatchObject({ url: "https://example.com/parley", events: ["call.completed", "call.failed"], description: "Operations team" });
  }, 30_000);

  test("360 px wide and dark: a campaign, the numbers (and a number's edit form) and the webhook deliveries fit, with nothing wider than the screen outside scrolling frames", async () => {
    const { context, page } = await h.open("/login", { width: 360, height: 740, colorScheme: "dark" });
    await signIn(page, user.email, user.password);
    await page.getByRole("navigation", { name: "Sections" }).waitFor(); // signed in: the shell is drawn
    for (const [path, title, name] of [
      [`/campaigns/${campaignId}`, "Spring renewals", "campaign-360px-dark"],
      ["/numbers", "Phone numbers", "numbers-360px-dark"],
      ["/settings/webhooks/deliveries", "Webhooks", "webhook-deliveries-360px-dark"],
    ]) {
      await page.goto(h.server.url + path);
      await heading(page, title);
      await page.locator("main .panel, main table").first().waitFor();
      expect(await overflowing(page)).toEqual([]);
      await h.screen(page, name);
    }
    await page.goto(h.server.url + "/numbers");
    await page.getByRole("button", { name: `Edit ${calling.number}` }).click();
    const form = page.getByRole("form", { name: `Edit ${calling.number}` });
    await form.getByRole("button", { name: "Add a variable" }).click();
    await form.getByLabel("Variable 1 name").waitFor();
    expect(await overflowing(page)).toEqual([]);
    await h.screen(page, "number-edit-360px-dark");
    await context.close();
  }, 30_000);

  test("no console error or CSP violation, and axe-core finds nothing serious on any screen", async () => {
    await owner.context.close();
    h.expectClean();
  });
});
