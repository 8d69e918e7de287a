// Both libraries as their users get them: the npm tarball installed into an empty project and imported
// by Node (and its types resolved by tsc through the package's exports), the Python wheel built by pip
// (Debian's python3-pip, no package index: the package's own backend builds it) and imported from where
// pip installed it, and the README's install into a fresh venv, as written.
import { afterAll, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "../helpers/process.ts";

const work = mkdtempSync(join(tmpdir(), "parley-packaging-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function run(command: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  const child = Bun.spawn(command, { cwd, env: { ...process.env, npm_config_update_notifier: "false", ...env }, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`${command.join(" ")} failed (${code}):\n${stdout}\n${stderr}`);
  return stdout;
}

test("the npm package: packed, installed into an empty project, imported by Node, typed for tsc", async () => {
  const pkg = join(work, "package");
  await run(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "src/sdk/ts/tsconfig.json"), "--outDir", join(pkg, "dist")], ROOT);
  for (const file of ["package.json", "README.md"]) cpSync(join(ROOT, "src/sdk/ts", file), join(pkg, file));
  cpSync(join(ROOT, "src/sdk/ts/src"), join(pkg, "src"), { recursive: true });
  const packed = JSON.parse(await run(["npm", "pack", "--json", "--pack-destination", work], pkg))[0];
  const files = packed.files.map((f: { path: string }) => f.path);
  for (const file of ["dist/index.js", "dist/index.d.ts", "dist/webhooks.js", "dist/generated/types.d.ts", "package.json", "README.md"]) expect(files).toContain(file);

  const app = join(work, "app");
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  await run(["npm", "install", "--offline", "--no-audit", "--no-fund", join(work, packed.filename)], app);
  const out = await run(["node", "--input-type=module", "-e", 'const m = await import("@parley/sdk"); const w = await import("@parley/sdk/webhooks"); console.log(typeof m.Parley, typeof m.verifyWebhook, typeof w.verifyWebhook, new m.Parley({ baseUrl: "http://h" }).baseUrl)'], app);
  expect(out.trim()).toBe("function function function http://h");

  writeFileSync(join(app, "use.ts"), 'import { Parley, type Agent, type WebhookEvent } from "@parley/sdk";\nconst agent: Promise<Agent> = new Parley().agents.get("agent_1");\nexport const check = (e: WebhookEvent) => ("type" in e ? e.type : e.event);\nvoid agent;\n');
  writeFileSync(join(app, "tsconfig.json"), JSON.stringify({ compilerOptions: { module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", lib: ["ES2022", "DOM"], strict: true, noEmit: true, types: [] }, files: ["use.ts"] }));
  await run(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(app, "tsconfig.json")], app);
}, 120_000);

/** pip with no package index at all (and no user configuration that might name one). */
const OFFLINE_PIP = { PIP_NO_INDEX: "1", PIP_CONFIG_FILE: "/dev/null", PIP_DISABLE_PIP_VERSION_CHECK: "1" };
/** The Python package as a user's checkout has it (no tests, no caches). */
function copyPythonPackage(to: string): void {
  cpSync(join(ROOT, "src/sdk/python"), to, { recursive: true, filter: (path) => !/__pycache__|\/tests(\/|$)/.test(path) });
}

test("the Python wheel: built by pip with its isolated build and no index, installed, imported from where pip put it", async () => {
  const python = "/usr/bin/python3"; // Debian's, with python3-pip from the CI packages
  const wheels = join(work, "wheels");
  const source = join(work, "python");
  copyPythonPackage(source);
  await run([python, "-m", "pip", "wheel", "--no-deps", "--wheel-dir", wheels, source], work, OFFLINE_PIP);
  const wheel = readdirSync(wheels).find((name) => name.endsWith(".whl"));
  expect(wheel).toMatch(/^parley_sdk-\d+\.\d+\.\d+-py3-none-any\.whl$/);
  const listing = await run([python, "-c", "import sys, zipfile; print('\\n'.join(zipfile.ZipFile(sys.argv[1]).namelist()))", join(wheels, wheel!)], work);
  for (const file of ["parley/__init__.py", "parley/py.typed", "parley/_resources.py", "parley/_types.py", "parley/webhooks.py"]) expect(listing).toContain(file);
  const site = join(work, "site");
  await run([python, "-m", "pip", "install", "--no-deps", "--no-index", "--target", site, join(wheels, wheel!)], work, OFFLINE_PIP);
  const out = await run([python, "-c", "import parley, parley.webhooks; print(parley.__file__.startswith(__import__('sys').argv[1]), callable(parley.Parley), callable(parley.webhooks.verify))", site], work, { PYTHONPATH: site });
  expect(out.trim()).toBe("True True True");
}, 120_000);

/** The sh block that follows `<!-- marker -->` in README.md. */
function readmeBlock(marker: string): string {
  const match = new RegExp(`<!-- ${marker} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(readFileSync(join(ROOT, "README.md"), "utf8"));
  if (!match) throw new Error(`README.md has no ${marker} block`);
  return match[1];
}

test("the README's Python install, exactly as written, into a fresh venv with no package index", async () => {
  const checkout = join(work, "checkout");
  copyPythonPackage(join(checkout, "src/sdk/python"));
  const child = Bun.spawn(["bash", "-euo", "pipefail", "-c", readmeBlock("python-install")], {
    cwd: checkout,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: checkout, ...OFFLINE_PIP },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  expect(stdout).toContain("Successfully installed parley-sdk-0.1.0");
  expect(stdout).toMatch(/^parley-sdk 0\.1\.0 installed$/m);
  // Installed, not imported from the checkout: the venv's copy answers.
  const where = await run([join(checkout, "parley-env/bin/python"), "-c", "import parley; print(parley.__file__)"], "/");
  expect(where.trim()).toStartWith(join(checkout, "parley-env/lib/"));
}, 120_000);
