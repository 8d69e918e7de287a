// The agents screens in Chromium against a real server: the list, a new agent from a template (its
// webhook signing secret once), every settings section saved with the server's errors[] highlighted
// (a flow node, the model's provider), a voice preview that plays, the webhook tab against a real
// loopback receiver (signed test event, rotation after confirming, recent deliveries), versions restored
// after confirming, the text playground, a browser voice call with Chromium's fake microphone, and the
// turn-taking settings (shown filled, a delay out of order refused on its field, saved and read back).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { verifyWebhook } from "../../src/sdk/ts/src/webhooks.ts";
import { pocketsphinxAvailability } from "../../src/voice/speech/builtin/index.ts";
import { chromiumAvailable, launchChromium } from "../helpers/chromium.ts";
import { dashboardHarness, heading, signIn } from "../helpers/dashboard-browser.ts";
import { registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";

declare const document: any;

const h = dashboardHarness("agents");
let user: RegisteredUser;
let owner: { context: BrowserContext; page: Page };
let agentId = "";
let signingSecret = "";
let receiver: Receiver;

const api = {
  get: (path: string) => h.server.api.get(path, { token: user.token }).then((r) => r.body),
  post: (path: string, body: unknown) => h.server.api.post(path, body, { token: user.token }).then((r) => r.body),
};
const node = (page: Page, id: string) => page.getByRole("group", { name: `Node ${id}`, exact: true });
const invalid = (page: Page, name: string) => page.locator(`[name="${name}"][aria-invalid="true"]`);
const tab = (page: Page, name: string) => page.getByRole("navigation", { name: "Agent" }).getByRole("link", { name, exact: true });

beforeAll(async () => {
  receiver = startReceiver();
});
afterAll(() => receiver?.stop());

describe.skipIf(!chromiumAvailable())("agents in the dashboard", () => {
  test("the list starts empty; a name the server refuses is highlighted; an agent is made from the receptionist template and its signing secret shown once", async () => {
    user = await registerUser(h.server.api, "agents");
    owner = await h.open("/login");
    const { page } = owner;
    await signIn(page, user.email, user.password);
    await page.getByRole("link", { name: "Agents" }).click();
    await heading(page, "Agents");
    await page.getByText("No agents yet").waitFor();
    await h.screen(page, "agents-empty");

    await page.getByRole("button", { name: "New agent" }).click();
    await page.getByRole("radio", { name: /Receptionist/ }).check();
    await page.getByRole("button", { name: "Create agent" }).click();
    await invalid(page, "name").waitFor();
    await page.waitForFunction(() => document.activeElement?.name === "name"); // focused on the next frame
    await h.screen(page, "agent-create-invalid");
    await page.getByLabel("Name", { exact: true }).fill("Front desk");
    await page.getByRole("button", { name: "Create agent" }).click();
    await heading(page, "Front desk");
    agentId = new URL(page.url()).pathname.split("/").pop()!;
    expect(agentId).toMatch(/^agent_/);
    signingSecret = await page.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(signingSecret.length).toBeGreaterThan(20);
    await h.screen(page, "agent-created-secret");
    await page.getByRole("button", { name: "I have stored it" }).click();
    expect(await page.getByText(signingSecret).count()).toBe(0);
    // The template's flow is what the server stored.
    const stored = await api.get(`/v1/agents/${agentId}`);
    expect(stored.brain.type).toBe("flow");
    expect(Object.keys(stored.brain.flow.nodes)).toEqual(["menu", "hours", "question", "more", "goodbye"]);

    await page.getByRole("link", { name: "← All agents" }).click();
    await heading(page, "Agents");
    const row = page.getByRole("row", { name: /Front desk/ });
    expect(await row.textContent()).toContain("Flow");
    await h.screen(page, "agents-list");
    await row.getByRole("link", { name: "Front desk" }).click();
    await heading(page, "Front desk");
  }, 45_000);

  test("settings: the flow editor's node the server refuses is highlighted; every section is edited and saved as a new version", async () => {
    const { page } = owner;
    const kb = await api.post("/v1/knowledge-base", { name: "Store policies" });
    await page.reload();
    await heading(page, "Front desk");

    // A transfer node with no number while the agent has no transfer number: the server names the node's field.
    await page.getByLabel("New node id").fill("operator");
    await page.getByLabel("New node type").selectOption("transfer");
    await page.getByRole("button", { name: "Add node" }).click();
    await node(page, "operator").waitFor();
    await node(page, "hours").getByLabel("Next").selectOption("operator");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await invalid(page, "brain.flow.nodes.operator.number").waitFor();
    expect(await page.getByRole("list", { name: "Problems the server found" }).textContent()).toContain("brain.flow.nodes.operator.number");
    await page.waitForFunction(() => document.activeElement?.name === "brain.flow.nodes.operator.number");
    await h.screen(page, "agent-settings-flow-invalid");

    await node(page, "operator").getByLabel("Said before transferring (optional)").fill("Putting you through now.");
    await page.getByLabel("Transfer number", { exact: true }).fill("+14155550123");
    await page.getByLabel("First message").fill("Hello, you have reached the front desk.");
    await page.getByLabel("Prompt", { exact: true }).fill("Be brief.");
    await page.getByLabel("Speed").fill("1.2");
    await page.getByLabel("Pause before answering (ms)").fill("800");
    await page.getByLabel("Callers can interrupt the agent").uncheck();
    await page.getByLabel("Phrases that end the call").fill("goodbye\nthat is all");
    await page.getByLabel("When a machine answers an outbound call").selectOption("leave_message");
    await page.getByLabel("Voicemail message").fill("Please call us back.");
    await page.getByLabel("End the call", { exact: true }).check();
    await page.getByRole("group", { name: "Knowledge bases", exact: true }).getByLabel("Store policies").check();
    await page.getByRole("button", { name: "Add field" }).click();
    await page.getByLabel("Field 1: name").fill("reason");
    await page.getByLabel("Description").last().fill("Why the caller called");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved as version 2.").waitFor();
    await h.screen(page, "agent-settings-saved");

    const agent = await api.get(`/v1/agents/${agentId}`);
    expect(agent).toMatchObject({
      version: 2,
      first_message: "Hello, you have reached the front desk.",
      system_prompt: "Be brief.",
      transfer_number: "+14155550123",
      voice: { speed: 1.2 },
      voicemail: { action: "leave_message", message: "Please call us back." },
      tools: [{ type: "end_call" }],
      knowledge_base_ids: [kb.id],
      extraction: [{ name: "reason", type: "string", description: "Why the caller called" }],
    });
    expect(agent.turn_taking).toMatchObject({ endpointing_ms: 800, interruptions: { enabled: false }, end_call_phrases: ["goodbye", "that is all"] });
    expect(agent.brain.flow.nodes.hours.next).toBe("operator");
    expect(agent.brain.flow.nodes.operator).toEqual({ type: "transfer", text: "Putting you through now." });
  }, 45_000);

  test("settings: a language-model brain without a provider is refused on its field; a voice preview plays; discarding restores the saved form", async () => {
    const { page } = owner;
    await page.getByLabel("Brain", { exact: true }).selectOption("llm");
    await page.getByLabel("Model", { exact: true }).fill("llama3.1");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await invalid(page, "brain.provider_id").waitFor();
    await h.screen(page, "agent-settings-llm-invalid");
    await page.getByRole("button", { name: "Discard changes" }).click();
    await node(page, "menu").waitFor();
    expect(await invalid(page, "brain.provider_id").count()).toBe(0);

    await page.getByRole("button", { name: "Preview voice" }).click();
    const audio = page.getByLabel("Voice preview");
    await audio.waitFor();
    expect(await audio.getAttribute("src")).toStartWith("blob:");
    // The WAV decodes: the browser knows its length.
    await page.waitForFunction(() => (document.querySelector("audio.agents-audio")?.duration ?? 0) > 0.3, undefined, { timeout: 15_000 });
  }, 45_000);

  test("webhooks: URL and events saved, a signed test event reaches a real receiver, the secret is rotated after confirming, deliveries are listed", async () => {
    const { page } = owner;
    await tab(page, "Webhooks").click();
    expect(new URL(page.url()).searchParams.get("tab")).toBe("webhooks");
    await page.getByText("No deliveries yet").waitFor();
    expect(await page.getByRole("button", { name: "Send test event" }).isDisabled()).toBe(true);
    await page.getByLabel("Webhook URL").fill("ftp://nowhere");
    await page.getByRole("button", { name: "Save webhook" }).click();
    await invalid(page, "webhook_url").waitFor();
    await page.getByLabel("Webhook URL").fill(receiver.url);
    await page.getByLabel(/call\.transcript/).uncheck();
    await page.getByRole("button", { name: "Save webhook" }).click();
    await page.getByText("Webhook saved.").waitFor();
    expect((await api.get(`/v1/agents/${agentId}`)).webhook_events).toEqual(["call.started", "call.ended", "call.error", "call.transfer"]);

    await page.getByRole("button", { name: "Send test event" }).click();
    await page.getByText(/delivered \(HTTP 200/).waitFor();
    const [request] = await receiver.waitFor(1);
    const event = await verifyWebhook(request.body, request.headers, signingSecret);
    expect(event).toMatchObject({ type: "webhook.test" });
    await page.getByRole("cell", { name: "Delivered (HTTP 200)" }).waitFor();
    await h.screen(page, "agent-webhooks");

    await page.getByRole("button", { name: "Rotate secret" }).click();
    const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await dialog.waitFor();
    await h.screen(page, "agent-webhooks-rotate-confirm");
    await dialog.getByRole("button", { name: "Rotate secret" }).click();
    const rotated = await page.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(rotated).not.toBe(signingSecret);
    await page.getByRole("button", { name: "I have stored it" }).click();
    await page.getByRole("button", { name: "Send test event" }).click();
    const second = (await receiver.waitFor(2))[1];
    expect(await verifyWebhook(second.body, second.headers, rotated)).toMatchObject({ type: "webhook.test" });
    await page.getByRole("button", { name: "Refresh" }).click();
    await page.getByRole("cell", { name: "Delivered (HTTP 200)" }).nth(1).waitFor();
  }, 45_000);

  test("versions: listed with the current one marked; restoring asks first and makes a new version with the old configuration", async () => {
    const { page } = owner;
    await tab(page, "Versions").click();
    await page.getByRole("row", { name: /current/ }).waitFor();
    const rows = page.getByRole("row");
    expect(await rows.count()).toBeGreaterThanOrEqual(4); // header + versions 1 to 3
    await h.screen(page, "agent-versions");
    await page.getByRole("button", { name: "Restore version 1" }).click();
    const dialog = page.getByRole("dialog", { name: "Restore version 1?" });
    await dialog.waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "detached" });
    const before = (await api.get(`/v1/agents/${agentId}`)).version;
    await page.getByRole("button", { name: "Restore version 1" }).click();
    await dialog.getByRole("button", { name: "Restore version" }).click();
    await page.getByText(`Version ${before + 1} ·`, { exact: false }).waitFor();
    const agent = await api.get(`/v1/agents/${agentId}`);
    expect(agent.version).toBe(before + 1);
    expect(agent.first_message).toBe("Thank you for calling. Would you like our opening hours, or do you have a question?");
    expect(agent.webhook_url).toBeNull(); // a version is the whole configuration, its webhook too
  }, 45_000);

  test("playground: the greeting, then the flow's answer to what is typed", async () => {
    const { page } = owner;
    await tab(page, "Playground").click();
    await page.getByRole("button", { name: "Start with the greeting" }).click();
    const log = page.getByRole("log", { name: "Conversation" });
    await log.getByText(/Would you like our opening hours/).waitFor();
    await page.getByLabel("Message").fill("your opening hours please");
    await page.getByRole("button", { name: "Send" }).click();
    await log.getByText("your opening hours please").waitFor();
    await log.getByText(/open nine to six/).waitFor();
    expect(await page.getByLabel("Message").inputValue()).toBe("");
    await h.screen(page, "agent-playground");
  }, 45_000);

  test("360 px wide and dark: the settings and the list stay usable", async () => {
    const narrow = await h.open(`/login?next=${encodeURIComponent(`/agents/${agentId}`)}`, { width: 360, height: 780, colorScheme: "dark" });
    await signIn(narrow.page, user.email, user.password);
    await heading(narrow.page, "Front desk");
    await node(narrow.page, "menu").waitFor();
    const overflow = await narrow.page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await h.screen(narrow.page, "agent-settings-360-dark");
    await narrow.page.goto(`${h.server.url}/agents`);
    await narrow.page.getByRole("row", { name: /Front desk/ }).waitFor();
    await h.screen(narrow.page, "agents-list-360-dark");
    await narrow.context.close();
  }, 45_000);

  test("deleting asks first", async () => {
    const { page } = owner;
    await page.getByRole("link", { name: "Agents", exact: true }).click();
    const spare = await api.post("/v1/agents", { name: "Spare" });
    await page.reload();
    await page.getByRole("button", { name: "Delete Spare" }).click();
    const dialog = page.getByRole("dialog", { name: "Delete “Spare”?" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Delete agent" }).click();
    await dialog.waitFor({ state: "detached" });
    await page.getByRole("row", { name: /Spare/ }).waitFor({ state: "detached" });
    await page.getByRole("row", { name: /Front desk/ }).waitFor();
    expect((await h.server.api.get(`/v1/agents/${spare.id}`, { token: user.token })).status).toBe(404);
  }, 30_000);
});

describe.skipIf(!chromiumAvailable() || !pocketsphinxAvailability().available)("talking to an agent in the browser", () => {
  let voiceBrowser: Browser;
  beforeAll(async () => {
    // Chromium's fake microphone (a tone); the greeting needs no caller speech.
    voiceBrowser = await launchChromium(["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required"]);
  });
  afterAll(async () => {
    await voiceBrowser?.close();
  }, 20_000);

  test("the call starts, the greeting appears as a caption, and hanging up ends it", async () => {
    const context = await voiceBrowser.newContext({ viewport: { width: 1200, height: 800 } });
    try {
      const page = await context.newPage();
      page.on("pageerror", (error) => h.problems.push(`${page.url()}: ${error}`));
      page.on("console", (message) => {
        if (message.type() === "error" && !/status of 4\d\d/.test(message.text())) h.problems.push(`${page.url()}: ${message.text()}`);
      });
      await page.addInitScript(() => document.addEventListener("securitypolicyviolation", (e: any) => console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`)));
      await page.goto(`${h.server.url}/login?next=${encodeURIComponent(`/agents/${agentId}?tab=talk`)}`);
      await signIn(page, user.email, user.password);
      await heading(page, "Front desk");
      await page.getByRole("button", { name: "Start call" }).click();
      await page.getByRole("status").filter({ hasText: "In the call" }).waitFor({ timeout: 15_000 });
      const captions = page.getByRole("log", { name: "Captions" });
      await captions.getByText(/Would you like our opening hours/).waitFor({ timeout: 20_000 });
      // A phone key from the keypad goes to the call (the flow listens on; the call goes on).
      await page.getByRole("group", { name: "Keypad" }).getByRole("button", { name: "Key 5" }).click();
      await page.getByText("Keys sent: 5").waitFor();
      // By keyboard (the button is reached and pressed like any other).
      await page.getByRole("button", { name: "Hang up" }).focus();
      await page.keyboard.press("Enter");
      await page.getByRole("status").filter({ hasText: "Call ended" }).waitFor({ timeout: 10_000 });
      // After the call: the captions stay, and nothing plays while the screen is captured.
      await h.screen(page, "agent-talk");
      const calls = await api.get("/v1/calls?direction=web");
      expect(calls.data[0]).toMatchObject({ agent_id: agentId, direction: "web" });
    } finally {
      await context.close();
    }
  }, 60_000);
});

describe.skipIf(!chromiumAvailable())("turn-taking settings in the dashboard", () => {
  test("turn-taking: endpointing mode and delays, preemption, sensitivity and backchannels are shown filled, a delay out of order is refused on its field, and the saved values read back over the API", async () => {
    const member = await registerUser(h.server.api, "turns");
    const agent = (await h.server.api.post("/v1/agents", { name: "Turn taker" }, { token: member.token })).body;
    const { context, page } = await h.open(`/login?next=${encodeURIComponent(`/agents/${agent.id}`)}`);
    try {
      await signIn(page, member.email, member.password);
      await heading(page, "Turn taker");
      // A new agent's settings, as the server filled them.
      expect(await page.getByLabel("Waiting for the caller to finish").inputValue()).toBe("dynamic");
      expect(await page.getByLabel("Shortest pause (ms)").inputValue()).toBe("300");
      expect(await page.getByLabel("Longest pause (ms)").inputValue()).toBe("2000");
      expect(await page.getByLabel(/preemptive generation/).isChecked()).toBe(true);
      expect(await page.getByLabel("Interruption sensitivity").inputValue()).toBe("medium");
      expect(await page.getByLabel(/^Backchannels/).inputValue()).toBe("ignore");

      await page.getByLabel("Shortest pause (ms)").fill("900");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await invalid(page, "turn_taking.endpointing.min_delay_ms").waitFor();
      expect(await page.getByRole("list", { name: "Problems the server found" }).textContent()).toContain("must not be more than endpointing_ms (600)");
      await page.getByLabel("Shortest pause (ms)").scrollIntoViewIfNeeded();
      await h.screen(page, "agent-settings-turn-taking-invalid");

      await page.getByLabel("Shortest pause (ms)").fill("250");
      await page.getByLabel("Pause before answering (ms)").fill("700");
      await page.getByLabel("Longest pause (ms)").fill("3500");
      await page.getByLabel("Waiting for the caller to finish").selectOption("fixed");
      await page.getByLabel(/preemptive generation/).uncheck();
      await page.getByLabel("Interruption sensitivity").selectOption("high");
      await page.getByLabel(/^Backchannels/).selectOption("interrupt");
      await page.getByLabel("Speech that counts as an interruption (ms)").fill("300");
      await page.getByRole("button", { name: "Save", exact: true }).click();
      await page.getByText("Saved as version 2.").waitFor();
      await h.screen(page, "agent-settings-turn-taking-saved");
      const saved = await h.server.api.get(`/v1/agents/${agent.id}`, { token: member.token });
      expect(saved.body.turn_taking).toMatchObject({
        endpointing_ms: 700,
        endpointing: { mode: "fixed", min_delay_ms: 250, max_delay_ms: 3500 },
        preemptive_generation: false,
        interruptions: { enabled: true, min_speech_ms: 300, sensitivity: "high", backchannels: "interrupt" },
      });
    } finally {
      await context.close();
    }
  }, 45_000);
});

describe.skipIf(!chromiumAvailable())("agents: the run as a whole", () => {
  test("no console errors or CSP violations, and no serious accessibility findings", () => {
    h.expectClean();
  });
});
