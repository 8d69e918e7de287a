// The README's first call from TypeScript and from Python, exactly as written, run from a copy of the
// repository root (the code imports the libraries by their paths there) against a fresh server.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FROM_SOURCE, ROOT, spawnServer, type ServerProcess } from "../helpers/process.ts";

const dir = mkdtempSync(join(tmpdir(), "parley-first-call-"));
let server: ServerProcess;
let key: string;

/** The sh block that follows `<!-- marker -->` in README.md. */
function block(marker: string): string {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!match) throw new Error(`README.md has no ${marker} block`);
  return match[1];
}

beforeAll(async () => {
  for (const name of ["src", "node_modules", "package.json"]) symlinkSync(join(ROOT, name), join(dir, name));
  server = await spawnServer(FROM_SOURCE, ["--data-dir", join(dir, "data")]);
  const post = (path: string, body: unknown, token?: string) =>
    fetch(server.url + path, { method: "POST", headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
  const { access_token } = await post("/v1/auth/register", { email: "first-call@example.com", password: "a long password" });
  key = (await post("/v1/api-keys", { name: "first call", scope: "write" }, access_token)).key;
});
afterAll(async () => {
  expect(await server.stop()).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});

async function run(marker: string): Promise<string> {
  const child = Bun.spawn(["bash", "-euo", "pipefail", "-c", block(marker)], {
    cwd: dir,
    // npm_config_update_notifier: npx would otherwise print its upgrade notice on stderr on a new HOME.
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, PARLEY_URL: server.url, PARLEY_API_KEY: key, npm_config_update_notifier: "false" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  return stdout;
}

test("both first calls, TypeScript and Python, complete with a transcript of both sides", async () => {
  const outputs = await Promise.all([run("first-call-ts"), run("first-call-python")]);
  for (const stdout of outputs) {
    expect(stdout).toMatch(/^call call_\w+: completed$/m);
    expect(stdout).toMatch(/^agent: Hello, you have reached Acme\. How can I help\?$/m);
    expect(stdout).toMatch(/^caller: \w+/m);
  }
}, 120_000);
