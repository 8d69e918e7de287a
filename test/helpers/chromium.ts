// Debian's Chromium driven by playwright-core: no browser download, the system binary with the flags
// this machine needs (its closed network refuses Chromium's background connections).
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"];

export function chromiumAvailable(): boolean {
  return existsSync(CHROMIUM);
}

/** A headless Chromium; `extraArgs` for a fake microphone and the like. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: [...FLAGS, ...extraArgs] });
}

/** Where screenshots and other artefacts of the browser tests are kept (git-ignored). */
export function artifactDir(): string {
  const dir = join(import.meta.dir, "..", "artifacts");
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** A page host on its own origin: every path answers `page(path)` with the headers given. */
export function hostPages(page: (path: string) => { body: string; type?: string; headers?: Record<string, string> } | null) {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const found = page(new URL(request.url).pathname);
      if (!found) return new Response("not found", { status: 404 });
      return new Response(found.body, { headers: { "content-type": found.type ?? "text/html; charset=utf-8", ...found.headers } });
    },
  });
  return { origin: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}
