// First load of the dashboard on a cold cache: a Parley from source serves it on loopback, and Debian's
// Chromium opens / in a fresh context (empty cache) each run, until the sign-in form is usable. Prints
// the bytes transferred (on the wire, and the script raw and gzipped) and the time to interactive,
// median and extremes over the runs.
// Usage: bun scripts/bench/dashboard-load.ts [--runs 7]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { buildConfig } from "../../src/config/config.ts";
import { createLogger } from "../../src/core/logger.ts";
import { closeParley, createParley, startServer } from "../../src/server.ts";
import { dashboardBundle } from "../../src/web/dashboard/routes.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "7" } } });
const runs = Number(values.runs);
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

const dataDir = mkdtempSync(join(tmpdir(), "parley-bench-dashboard-"));
const ctx = createParley({ config: buildConfig({ host: "127.0.0.1", port: "0", dataDir }), logger: createLogger("warn") });
const server = startServer(ctx);
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: FLAGS });

const { build, assets } = await dashboardBundle(); // built before the first run, as a binary has it
const script = assets.get(build.script)!;
const style = assets.get(build.style)!;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const times: number[] = [];
const wire: number[] = [];
try {
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext(); // a new profile: nothing cached
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    let bytes = 0;
    cdp.on("Network.loadingFinished", (event: { encodedDataLength: number }) => void (bytes += event.encodedDataLength));
    const started = performance.now();
    await page.goto(server.url + "/");
    await page.getByRole("button", { name: "Sign in" }).waitFor();
    await page.getByLabel("E-mail").focus(); // usable: the form takes input
    times.push(performance.now() - started);
    await page.waitForLoadState("networkidle");
    wire.push(bytes);
    await context.close();
  }
} finally {
  await browser.close();
  await server.stop();
  closeParley(ctx);
  rmSync(dataDir, { recursive: true, force: true });
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
console.log(`dashboard first load, cold cache, Chromium on loopback (${runs} runs)`);
console.log(`  script      ${kb(script.body.length)} raw, ${kb(script.gzipBytes)} gzipped (budget 250 KB gzipped)`);
console.log(`  stylesheet  ${kb(style.body.length)} raw, ${kb(style.gzipBytes)} gzipped`);
console.log(`  transferred ${kb(median(wire))} median (page, script, stylesheet, branding call; headers included)`);
console.log(`  interactive ${median(times).toFixed(0)} ms median (min ${Math.min(...times).toFixed(0)}, max ${Math.max(...times).toFixed(0)})`);
