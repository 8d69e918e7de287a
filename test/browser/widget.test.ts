// The widget in a real browser: Debian's Chromium (playwright-core) loads a host page on another origin
// that embeds the widget with its <script> tag under a strict CSP and hostile CSS, chats with a flow
// agent and an LLM agent, and talks to an agent with Chromium's fake microphone.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { encodeWav } from "../../src/voice/media/wav-format.ts";
import { pocketsphinxAvailability } from "../../src/voice/speech/builtin/index.ts";
import { waitForCall } from "../helpers/call-api.ts";
import { artifactDir, chromiumAvailable, hostPages, launchChromium } from "../helpers/chromium.ts";
import { startFakeOpenAI, type FakeOpenAI } from "../helpers/fake-openai.ts";
import { serverWithUser } from "../helpers/fixtures.ts";
import { speech } from "../helpers/softphone.ts";

// Page-side code (run by page.evaluate) sees the browser's globals; the suite is typed without the DOM library.
declare const document: any, window: any, getComputedStyle: (el: unknown) => any, innerWidth: number, innerHeight: number;
type ShadowRoot = { activeElement: unknown };

const s = serverWithUser("widget-browser");
const opts = () => ({ token: s.user.token });
const TIMEOUT = 60_000;
const HOSTILE_CSS = `
  * { box-sizing: content-box !important; line-height: 3 !important; letter-spacing: 4px !important; }
  body, div, button, input { font-family: "Comic Sans MS", cursive !important; font-size: 31px !important; color: #f0f !important; }
  button { background: #f00 !important; padding: 40px !important; border: 9px dotted lime !important; border-radius: 0 !important; width: 300px !important; }
  div { margin: 25px !important; }
`;

let browser: Browser;
let fake: FakeOpenAI;
let host: ReturnType<typeof hostPages>;
let stranger: ReturnType<typeof hostPages>;
let flowWidget: string;
let llmWidget: string;
let voiceWidget: string;
const artefacts = () => artifactDir();

async function post(path: string, body: unknown) {
  const res = await s.server.api.post(path, body, opts());
  if (res.status >= 300) throw new Error(`${path}: ${res.status} ${res.text}`);
  return res.body;
}

/** The host page: the widget's script tag, a strict CSP (no inline script or style, no eval), optionally hostile CSS. */
function page(widgetId: string, hostile: boolean) {
  const parley = s.server.url;
  const csp = `default-src 'none'; script-src ${parley}; connect-src ${parley} ${parley.replace(/^http/, "ws")}; style-src 'self'; img-src ${parley}`;
  return {
    body: `<!doctype html><html><head><title>Shop</title>${hostile ? '<link rel="stylesheet" href="/hostile.css">' : ""}</head><body><h1>Our shop</h1><p>Products.</p><script src="${parley}/v1/widgets/${widgetId}/embed.js" async></script></body></html>`,
    headers: { "content-security-policy": csp },
  };
}

/** A page in the browser, with every CSP violation and console error it reports kept. */
async function open(url: string, browserToUse = browser): Promise<{ page: Page; violations: string[]; console: string[] }> {
  const context = await browserToUse.newContext({ viewport: { width: 1000, height: 800 } });
  const p = await context.newPage();
  const violations: string[] = [];
  const consoleLines: string[] = [];
  p.on("console", (message) => {
    consoleLines.push(`${message.type()}: ${message.text()}`);
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await p.addInitScript(() => document.addEventListener("securitypolicyviolation", (e: any) => console.error(`Content Security Policy violation: ${e.violatedDirective} ${e.blockedURI}`)));
  await p.goto(url);
  return { page: p, violations, console: consoleLines };
}

const launcher = (p: Page) => p.getByRole("button", { name: /^Open (chat with|voice assistant)/ });
const log = (p: Page) => p.getByRole("log", { name: "Conversation" });

async function chat(p: Page, message: string, expectReply: RegExp) {
  await p.getByRole("textbox", { name: "Message" }).fill(message);
  await p.keyboard.press("Enter");
  await log(p).getByText(message, { exact: true }).waitFor();
  await log(p).getByText(expectReply).waitFor({ timeout: 15_000 });
}

beforeAll(async () => {
  if (!chromiumAvailable()) return;
  browser = await launchChromium();
  host = hostPages((path) => {
    if (path === "/hostile.css") return { body: HOSTILE_CSS, type: "text/css" };
    const match = /^\/(plain|hostile)\/(wgt_\w+)$/.exec(path);
    return match ? page(match[2], match[1] === "hostile") : null;
  });
  stranger = hostPages((path) => {
    const match = /^\/(wgt_\w+)$/.exec(path);
    return match ? page(match[1], false) : null;
  });
  const flow = {
    start: "ask",
    nodes: {
      ask: { type: "ask", text: "What would you like to know?", slot: { name: "topic", type: "string" }, next: "answer" },
      answer: { type: "say", text: "We are open nine to six on weekdays. You asked about {{topic}}.", next: "ask" },
    },
  };
  const flowAgent = await post("/v1/agents", { name: "Shop desk", brain: { type: "flow", flow } });
  fake = startFakeOpenAI();
  const provider = await post("/v1/providers", { name: "local model", kind: "openai-compatible", base_url: fake.url });
  const llmAgent = await post("/v1/agents", { name: "Shop assistant", system_prompt: "You help shoppers.", brain: { type: "llm", provider_id: provider.id, model: "fake-chat" } });
  const look = { title: "Shop help", greeting: "Hi! Ask me anything.", primary_color: "#0f766e" };
  flowWidget = (await post("/v1/widgets", { agent_id: flowAgent.id, name: "Flow chat", allowed_origins: [host.origin], mode: "chat", look })).id;
  llmWidget = (await post("/v1/widgets", { agent_id: llmAgent.id, name: "LLM chat", allowed_origins: [host.origin], mode: "chat", look })).id;
  const voiceAgent = await post("/v1/agents", {
    name: "Voice desk",
    first_message: "Hello, this is the shop.",
    brain: { type: "flow", flow: { start: "ask", nodes: { ask: flow.nodes.ask, answer: { type: "say", text: "We are open from nine in the morning until six in the evening on every weekday, and from ten until two on Saturdays. We are closed on Sundays and on public holidays.", next: "ask" } } } },
  });
  voiceWidget = (await post("/v1/widgets", { agent_id: voiceAgent.id, name: "Voice", allowed_origins: [host.origin], mode: "both", look: { title: "Talk to the shop" } })).id;
});

afterAll(async () => {
  await browser?.close();
  host?.stop();
  stranger?.stop();
  fake?.stop();
});

describe.skipIf(!chromiumAvailable())("the widget embedded on another origin under a strict CSP", () => {
  test("chats with a flow agent: launcher, panel, greeting, two turns kept in one session; screenshots kept", async () => {
    const { page: p, violations } = await open(`${host.origin}/plain/${flowWidget}`);
    await launcher(p).waitFor();
    await p.screenshot({ path: join(artefacts(), "widget-closed.png") });
    await launcher(p).click();
    await expect(p.getByRole("dialog", { name: "Shop help" }).isVisible()).resolves.toBe(true);
    await log(p).getByText("Hi! Ask me anything.").waitFor();
    await chat(p, "your opening hours", /You asked about your opening hours/);
    await chat(p, "parking", /You asked about parking/);
    await p.screenshot({ path: join(artefacts(), "widget-open.png") });
    expect(violations).toEqual([]);
    await p.context().close();
  }, TIMEOUT);

  test("chats with an LLM agent through the local OpenAI-protocol server", async () => {
    fake.script([{ text: ["Our return window ", "is thirty days."] }]);
    const { page: p, violations } = await open(`${host.origin}/plain/${llmWidget}`);
    await launcher(p).click();
    await chat(p, "How long do I have to return an item?", /Our return window is thirty days\./);
    const request = fake.requests.find((r) => r.path === "/v1/chat/completions")!;
    expect(JSON.stringify(request.body.messages)).toContain("How long do I have to return an item?");
    expect(violations).toEqual([]);
    await p.context().close();
  }, TIMEOUT);

  test("the host page's hostile CSS does not change the widget", async () => {
    const styles = async (url: string) => {
      const { page: p } = await open(url);
      await launcher(p).click();
      await p.getByRole("textbox", { name: "Message" }).waitFor();
      const read = (name: string) =>
        p.getByRole(name === "input" ? "textbox" : "button", { name: name === "input" ? "Message" : name }).evaluate((el) => {
          const style = getComputedStyle(el);
          const box = el.getBoundingClientRect();
          return { font: style.fontFamily, size: style.fontSize, line: style.lineHeight, spacing: style.letterSpacing, colour: style.color, background: style.backgroundColor, padding: style.padding, border: style.borderTopStyle, width: Math.round(box.width), height: Math.round(box.height) };
        });
      const measured = { launcher: await launcher(p).evaluate((el) => { const s = getComputedStyle(el); const b = el.getBoundingClientRect(); return { background: s.backgroundColor, width: Math.round(b.width), height: Math.round(b.height), right: Math.round(innerWidth - b.right), bottom: Math.round(innerHeight - b.bottom) }; }), input: await read("input"), send: await read("Send"), close: await read("Close") };
      await p.context().close();
      return measured;
    };
    const plain = await styles(`${host.origin}/plain/${flowWidget}`);
    const hostile = await styles(`${host.origin}/hostile/${flowWidget}`);
    expect(hostile).toEqual(plain);
    expect(plain.launcher.background).toBe("rgb(15, 118, 110)"); // the widget's own primary colour
  }, TIMEOUT);

  test("a page on an origin the widget does not allow sees a refusal, and no widget", async () => {
    const { page: p, console: lines } = await open(`${stranger.origin}/${flowWidget}`);
    await p.waitForFunction(() => performance.getEntriesByType("resource").some((e) => e.name.includes("/config")));
    await Bun.sleep(300);
    expect(await launcher(p).count()).toBe(0);
    expect(lines.some((line) => line.startsWith("warning: Parley widget") && line.includes(`${stranger.origin}) is not one the widget allows`))).toBe(true);
    // What the browser could not read: the server's 403 problem naming the origin.
    const refused = await fetch(`${s.server.url}/v1/widgets/${flowWidget}/config`, { headers: { origin: stranger.origin } });
    expect(refused.status).toBe(403);
    expect(refused.headers.get("access-control-allow-origin")).toBeNull();
    expect(((await refused.json()) as any).detail).toContain(stranger.origin);
    const status = await p.evaluate(async (url) => (await fetch(url).catch(() => null))?.status ?? "blocked", `${s.server.url}/v1/widgets/${flowWidget}/config`);
    // Without CORS headers for that origin the browser does not even let the page read the 403.
    expect(status).toBe("blocked");
    await p.context().close();
  }, TIMEOUT);

  test("launcher and panel are keyboard-operable and labelled", async () => {
    const { page: p } = await open(`${host.origin}/plain/${flowWidget}`);
    await launcher(p).waitFor();
    expect(await launcher(p).getAttribute("aria-expanded")).toBe("false");
    await launcher(p).focus();
    await p.keyboard.press("Enter");
    const input = p.getByRole("textbox", { name: "Message" });
    await input.waitFor();
    expect(await input.evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    expect(await launcher(p).getAttribute("aria-expanded")).toBe("true");
    await p.keyboard.type("hours");
    await p.keyboard.press("Enter");
    await log(p).getByText(/You asked about hours/).waitFor();
    expect(await p.getByRole("button", { name: "Close" }).count()).toBe(1);
    await p.keyboard.press("Escape");
    expect(await p.getByRole("dialog").isVisible()).toBe(false);
    expect(await launcher(p).evaluate((el) => el === (el.getRootNode() as ShadowRoot).activeElement)).toBe(true);
    await p.context().close();
  }, TIMEOUT);
});

describe.skipIf(!chromiumAvailable() || !pocketsphinxAvailability().available)("voice in the browser with a fake microphone", () => {
  test("the visitor's recorded question is transcribed, the answer plays, and talking over it clears playback", async () => {
    // The microphone loops this file: a pause, the question, a longer pause (the answer plays), again.
    const question = await speech("What are your opening hours?", 16000);
    const wav = new Int16Array(16000 * 2 + question.length + 16000 * 5);
    wav.set(question, 16000 * 2);
    const wavPath = join(artefacts(), "visitor-question.wav");
    writeFileSync(wavPath, encodeWav(wav, { sampleRate: 16000, channels: 1 }));
    const voiceBrowser = await launchChromium(["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", `--use-file-for-fake-audio-capture=${wavPath}`, "--autoplay-policy=no-user-gesture-required"]);
    try {
      const { page: p, violations } = await open(`${host.origin}/plain/${voiceWidget}`, voiceBrowser);
      await launcher(p).click();
      await p.getByRole("button", { name: "Start voice call" }).click();
      // Both turns in the panel's transcript: the greeting, the visitor's words, the answer.
      await log(p).getByText("Hello, this is the shop.").waitFor({ timeout: 15_000 });
      await log(p).getByText(/open from nine/).waitFor({ timeout: 30_000 });
      const stats = await p.waitForFunction(() => {
        const session = (window as any).ParleyWidget?.voice;
        return session && session.stats.framesReceived > 50 && session.stats.framesPlayed > 50 && session.stats.clears > 0 ? session.stats : null;
      }, undefined, { timeout: 30_000 });
      expect((await stats.jsonValue()).framesSent).toBeGreaterThan(100);
      const lines = await log(p).locator("div").allTextContents();
      await p.getByRole("button", { name: "End call" }).click();
      const calls = (await s.server.api.get("/v1/calls?direction=web", opts())).body.data;
      const call = await waitForCall(s.server.api, s.user.token, calls[0].id);
      expect(call).toMatchObject({ direction: "web", status: "completed", metadata: { widget_id: voiceWidget, origin: host.origin } });
      const callerTurns = call.transcript.filter((t: any) => t.role === "caller");
      expect(callerTurns.length).toBeGreaterThan(0);
      expect(lines.some((line) => callerTurns.some((t: any) => line.includes(t.text)))).toBe(true);
      const events = (await s.server.api.get(`/v1/calls/${call.id}/events`, opts())).body.data;
      expect(events.some((e: any) => e.type === "barge_in")).toBe(true);
      await p.screenshot({ path: join(artefacts(), "widget-voice.png") });
      expect(violations).toEqual([]);
    } finally {
      await voiceBrowser.close();
    }
  }, 90_000);
});
