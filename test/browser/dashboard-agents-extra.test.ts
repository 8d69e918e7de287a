// More of the dashboard in Chromium against a real server: an agent duplicated from its page (an empty
// name refused on its field first; the copy's signing secret shown once), one of its webhook functions
// tried from the settings (a loopback tool server; arguments that are not JSON refused on their field),
// a widget's preview shown in a frame on the widgets screen (the dashboard's CSP frames its own origin,
// the preview allows it as an ancestor), billing's payments read 25 at a time with "Load more", an answer
// node's own knowledge bases ticked in the flow editor, and an agent's metadata (refused unless a JSON object).
import { describe, expect, test } from "bun:test";
import type { BrowserContext, Page } from "playwright-core";
import { chromiumAvailable } from "../helpers/chromium.ts";
import { dashboardHarness, heading, signIn, waitForFocus } from "../helpers/dashboard-browser.ts";
import { createKey, registerUser, type RegisteredUser } from "../helpers/fixtures.ts";
import { startReceiver, type Receiver } from "../helpers/webhook-receiver.ts";

// Page-side code (run by page.evaluate) sees the browser's globals; the suite is typed without the DOM library.
declare const document: any;

const h = dashboardHarness("agents-extra");

describe.skipIf(!chromiumAvailable())("agent duplicate and function test, widget preview, payments paging, node knowledge bases and metadata in Chromium", () => {
  let user: RegisteredUser;
  let key: string;
  let owner: { context: BrowserContext; page: Page };
  let tools: Receiver;
  let agentId: string;
  let helpLineId: string;
  const api = {
    get: (path: string) => h.server.api.get(path, { token: key }),
    post: (path: string, body: unknown) => h.server.api.post(path, body, { token: key }),
  };

  test("an agent duplicated from its page: an empty name is refused on its field, then the copy opens with its signing secret shown once", async () => {
    user = await registerUser(h.server.api, "builder");
    key = (await createKey(h.server.api, user.token, "admin")).secret;
    tools = startReceiver((request) => Response.json({ data: { status: "shipped", order: JSON.parse(request.body).arguments.order_id } }));
    const tool = await api.post("/v1/tools", { name: "lookup_order", description: "Look up an order", url: tools.url, parameters: { type: "object", properties: { order_id: { type: "string" } } }, response_path: "data.status" });
    expect(tool.status).toBe(201);
    const agent = await api.post("/v1/agents", { name: "Order desk", first_message: "Hello.", tools: [{ type: "function", tool_id: tool.body.id }] });
    expect(agent.status).toBe(201);
    agentId = agent.body.id;
    owner = await h.open("/login");
    const { page } = owner;
    await signIn(page, user.email, user.password);
    await page.goto(`${h.server.url}/agents/${agentId}`);
    await heading(page, "Order desk");

    await page.getByRole("button", { name: "Duplicate" }).click();
    const dialog = page.getByRole("dialog", { name: "Duplicate “Order desk”" });
    const name = dialog.getByLabel("Name of the copy");
    expect(await name.inputValue()).toBe("Order desk (copy)");
    await name.fill("");
    await dialog.getByRole("button", { name: "Duplicate" }).click();
    await dialog.locator('input[name="name"][aria-invalid="true"]').waitFor();
    await waitForFocus(name);
    await h.screen(page, "agent-duplicate-invalid");
    await name.fill("Order desk, evenings");
    await dialog.getByRole("button", { name: "Duplicate" }).click();
    await heading(page, "Order desk, evenings");
    const copyId = new URL(page.url()).pathname.split("/").pop()!;
    expect(copyId).not.toBe(agentId);
    const secret = await page.getByRole("textbox", { name: "Signing secret" }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await h.screen(page, "agent-duplicated");
    await page.getByRole("button", { name: "I have stored it" }).click();
    const copy = (await api.get(`/v1/agents/${copyId}`)).body;
    expect(copy).toMatchObject({ name: "Order desk, evenings", first_message: "Hello.", tools: [{ type: "function", tool_id: tool.body.id }] });
  }, 30_000);

  test("a webhook function tried from the settings: arguments that are not JSON are refused, then the tool answers and the agent's result is shown", async () => {
    const { page } = owner;
    await page.goto(`${h.server.url}/agents/${agentId}`);
    await heading(page, "Order desk");
    const tester = page.getByRole("group", { name: "Try a function" });
    const args = tester.getByLabel("Arguments (JSON)");
    expect(JSON.parse(await args.inputValue())).toEqual({ order_id: "" });
    await args.fill("{ order_id: A-17 }");
    await tester.getByRole("button", { name: "Try lookup_order" }).click();
    await tester.locator('textarea[name="arguments"][aria-invalid="true"]').waitFor();
    expect(tools.requests).toHaveLength(0);
    await args.fill('{"order_id": "A-17"}');
    await tester.getByRole("button", { name: "Try lookup_order" }).click();
    await tester.getByText("HTTP 200").waitFor();
    expect(await tester.locator("pre").textContent()).toBe("shipped");
    expect(await tester.textContent()).toContain(tools.url);
    expect(await tester.locator('textarea[name="arguments"]').getAttribute("aria-invalid")).toBeNull();
    expect(JSON.parse(tools.requests[0].body)).toMatchObject({ tool: "lookup_order", arguments: { order_id: "A-17" }, agent_id: agentId });
    await tester.scrollIntoViewIfNeeded();
    await h.screen(page, "agent-function-tried");
  }, 30_000);

  test("a widget's preview page shows in a frame on the widgets screen", async () => {
    const { page } = owner;
    const widget = await api.post("/v1/widgets", { agent_id: agentId, name: "Shop chat", look: { title: "Ask the shop" } });
    expect(widget.status).toBe(201);
    await page.goto(`${h.server.url}/widgets`);
    await heading(page, "Widgets");
    await page.getByRole("button", { name: "Embed Shop chat" }).click();
    const frame = page.locator('iframe[title="Preview of Shop chat"]');
    expect(await frame.getAttribute("src")).toBe(widget.body.embed.preview_url);
    const preview = page.frameLocator('iframe[title="Preview of Shop chat"]');
    await preview.getByRole("heading", { name: "Preview: Ask the shop" }).waitFor();
    // The widget's own script ran inside the frame: its launcher is drawn.
    await preview.getByRole("button", { name: "Open chat with Ask the shop" }).waitFor();
    await h.screen(page, "widget-preview-frame");
  }, 30_000);

  test("billing: the payments are read 25 at a time, the rest with Load more", async () => {
    const { page } = owner;
    for (let i = 0; i < 30; i++) expect((await api.post("/v1/payments/topup", { amount: 1000 + i, provider: "offline" })).status).toBe(201);
    await page.goto(`${h.server.url}/billing`);
    await heading(page, "Billing");
    const rows = page.getByRole("table", { name: "Payments, newest first" }).locator("tbody tr");
    await rows.nth(24).waitFor();
    expect(await rows.count()).toBe(25);
    await page.getByRole("button", { name: "Load more" }).click();
    await rows.nth(29).waitFor();
    expect(await rows.count()).toBe(30);
    await page.getByRole("button", { name: "Load more" }).waitFor({ state: "detached" });
    const ids = await rows.locator("code").allTextContents();
    expect(new Set(ids).size).toBe(30);
    await h.screen(page, "billing-payments-paged");
  }, 30_000);

  test("settings: an answer node's own knowledge bases are ticked in the flow editor and saved in the node", async () => {
    const { page } = owner;
    const returns = await api.post("/v1/knowledge-base", { name: "Returns policy" });
    const hours = await api.post("/v1/knowledge-base", { name: "Opening hours" });
    expect([returns.status, hours.status]).toEqual([201, 201]);
    const faq = { type: "answer", fallback: "I don't know that one.", next: "faq" };
    const agent = await api.post("/v1/agents", { name: "Help line", knowledge_base_ids: [hours.body.id], brain: { type: "flow", flow: { start: "faq", nodes: { faq } } } });
    expect(agent.status).toBe(201);
    helpLineId = agent.body.id;
    await page.goto(`${h.server.url}/agents/${helpLineId}`);
    await heading(page, "Help line");
    const kbs = page.getByRole("group", { name: "Node faq", exact: true }).getByRole("group", { name: "Knowledge bases of node faq" });
    await kbs.getByLabel("Returns policy").check();
    expect(await kbs.getByLabel("Opening hours").isChecked()).toBe(false);
    await kbs.scrollIntoViewIfNeeded();
    await h.screen(page, "agent-flow-node-knowledge-bases");
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved as version 2.").waitFor();
    const stored = (await api.get(`/v1/agents/${helpLineId}`)).body;
    expect(stored.brain.flow.nodes.faq).toEqual({ ...faq, knowledge_base_ids: [returns.body.id] });
    expect(stored.knowledge_base_ids).toEqual([hours.body.id]);

    // None ticked again: the node falls back to the agent's knowledge bases (the field is left out).
    await kbs.getByLabel("Returns policy").uncheck();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText("Saved as version 3.").waitFor();
    expect((await api.get(`/v1/agents/${helpLineId}`)).body.brain.flow.nodes.faq).toEqual(faq);
  }, 30_000);

  test("settings: metadata that is not a JSON object is refused on its field; a JSON object is saved as given", async () => {
    const { page } = owner;
    const metadata = page.getByLabel("Metadata (JSON object)");
    expect(JSON.parse(await metadata.inputValue())).toEqual({});
    await metadata.fill('["not", "an object"]');
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.locator('textarea[name="metadata"][aria-invalid="true"]').waitFor();
    await page.waitForFunction(() => document.activeElement?.name === "metadata");
    await metadata.scrollIntoViewIfNeeded();
    await h.screen(page, "agent-metadata-invalid");
    expect((await api.get(`/v1/agents/${helpLineId}`)).body.metadata).toEqual({});
    await metadata.fill('{"team": "support", "tier": 2, "tags": ["vip"]}');
    expect(await metadata.getAttribute("aria-invalid")).toBeNull();
    await page.getByRole("button", { name: "Save", exact: true }).click();
    await page.getByText(/^Saved as version \d+\.$/).waitFor();
    expect((await api.get(`/v1/agents/${helpLineId}`)).body.metadata).toEqual({ team: "support", tier: 2, tags: ["vip"] });
    // What the server stored is what the form shows after a reload.
    await page.reload();
    await heading(page, "Help line");
    expect(JSON.parse(await page.getByLabel("Metadata (JSON object)").inputValue())).toEqual({ team: "support", tier: 2, tags: ["vip"] });
  }, 30_000);

  test("no console error or CSP violation, and axe-core finds nothing serious on any screen", async () => {
    await owner.context.close();
    tools.stop();
    h.expectClean();
  });
});
