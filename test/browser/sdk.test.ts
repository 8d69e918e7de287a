// The TypeScript client library in a browser (Debian's Chromium): bundled for the browser, loaded by
// a page on Parley's origin (as the dashboard will), it creates, lists across pages, uploads a file,
// maps errors, and verifies a real webhook delivery with WebCrypto.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Browser } from "playwright-core";
import { join } from "node:path";
import { createKey, serverWithUser } from "../helpers/fixtures.ts";
import { launchChromium } from "../helpers/chromium.ts";
import { ROOT } from "../helpers/process.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";

const s = serverWithUser("browser-sdk");
let browser: Browser;
let bundle: string;

beforeAll(async () => {
  const built = await Bun.build({ entrypoints: [join(ROOT, "src/sdk/ts/src/index.ts")], target: "browser", format: "esm" });
  if (!built.success) throw new Error(built.logs.join("\n"));
  bundle = await built.outputs[0].text();
  browser = await launchChromium();
});
afterAll(() => browser?.close());

test("works in Chromium: resources, pagination, an upload, typed errors and webhook verification", async () => {
  const key = (await createKey(s.server.api, s.user.token, "admin")).secret;
  const receiver = startReceiver();
  try {
    const endpoint = (await s.server.api.post("/v1/webhooks", { url: receiver.url, events: ["call.completed"] }, { token: key })).body;
    await s.server.api.post(`/v1/webhooks/${endpoint.id}/test`, undefined, { token: key });
    const [delivery] = await receiver.waitFor(1);

    const page = await browser.newPage();
    const origin = new URL(s.server.url).origin;
    // The page and the library come from Parley's origin (routed here), the API calls go to the real server.
    await page.route(`${origin}/sdk-page`, (route) => route.fulfill({ contentType: "text/html", body: "<!doctype html><title>sdk</title>" }));
    await page.route(`${origin}/sdk.js`, (route) => route.fulfill({ contentType: "text/javascript", body: bundle }));
    const errors: string[] = [];
    page.on("pageerror", (error) => errors.push(String(error)));
    await page.goto(`${origin}/sdk-page`);
    const result = await page.evaluate(
      async ({ key, delivery, secret }) => {
        const sdk = await import("/sdk.js" as string);
        const client = new sdk.Parley({ baseUrl: (globalThis as any).location.origin, apiKey: key });
        for (const name of ["One", "Two", "Three"]) await client.agents.create({ name });
        const ids: string[] = [];
        for await (const agent of client.agents.list({ limit: 1 })) ids.push(agent.id);
        const kb = await client.knowledgeBases.create({ name: "From a browser" });
        const source = await client.knowledgeBases.addSource(kb.id, { file: new Blob(["We open at nine."], { type: "text/plain" }), filename: "hours.txt" });
        let notFound = null;
        try {
          await client.agents.get("agent_missing");
        } catch (error: any) {
          notFound = { isNotFound: error instanceof sdk.NotFoundError, status: error.status, code: error.code };
        }
        const verified = await sdk.verifyWebhook(delivery.body, delivery.headers, secret, { scheme: "standard" });
        const brand = await sdk.verifyWebhook(delivery.body, delivery.headers, secret, { scheme: "brand" });
        let tampered = false;
        try {
          await sdk.verifyWebhook(delivery.body.replace("webhook.test", "webhook.tesT"), delivery.headers, secret);
        } catch (error) {
          tampered = error instanceof sdk.WebhookVerificationError;
        }
        return { ids, source: { name: source.name, kind: source.type }, notFound, event: verified.event, brand: brand.event, tampered };
      },
      { key, delivery: { body: delivery.body, headers: delivery.headers }, secret: endpoint.secret },
    );
    expect(errors).toEqual([]);
    expect(result.ids).toHaveLength(3);
    expect(new Set(result.ids).size).toBe(3);
    expect(result.source.name).toBe("hours.txt");
    expect(result.notFound).toEqual({ isNotFound: true, status: 404, code: "not_found" });
    expect(result.event).toBe("webhook.test");
    expect(result.brand).toBe("webhook.test");
    expect(result.tampered).toBe(true);
    await page.close();
  } finally {
    receiver.stop();
  }
}, 60_000);
