// The README's quickstart, exactly as written, from an empty shell against a freshly started server.
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FROM_SOURCE, spawnServer } from "../helpers/process.ts";

const dir = mkdtempSync(join(tmpdir(), "parley-quickstart-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The sh block that follows `<!-- quickstart -->` in README.md. */
function quickstartScript(): string {
  const readme = readFileSync(join(import.meta.dir, "..", "..", "README.md"), "utf8");
  const match = /<!-- quickstart -->\n```sh\n([\s\S]*?)\n```/.exec(readme);
  if (!match) throw new Error("README.md has no quickstart block");
  return match[1];
}

test("the README quickstart runs from an empty shell: a completed call with a transcript and a recording", async () => {
  const server = await spawnServer(FROM_SOURCE, ["--data-dir", join(dir, "data")]);
  try {
    const run = Bun.spawn(["bash", "-euo", "pipefail", "-c", quickstartScript()], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, PARLEY_URL: server.url },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text()]);
    expect({ exit: await run.exited, stderr }).toEqual({ exit: 0, stderr: "" });
    expect(stdout).toMatch(/^call call_\w+: completed$/m);
    expect(stdout).toMatch(/^Agent: Hello, you have reached Acme\. How can I help\?$/m);
    expect(stdout).toMatch(/^Caller: /m);
    expect(stdout).toContain("recording saved to call.mp3");
    expect(existsSync(join(dir, "call.mp3"))).toBe(true);
    expect(statSync(join(dir, "call.mp3")).size).toBeGreaterThan(10_000);
  } finally {
    expect(await server.stop()).toBe(0);
  }
}, 120_000);
