import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT } from "./process.ts";

let built: Promise<string> | null = null;

/** dist/parley built once per test run (into a scratch dir), shared by every test that runs the executable. */
export function builtBinary(): Promise<string> {
  built ??= (async () => {
    const binary = join(mkdtempSync(join(tmpdir(), "parley-binary-")), "parley");
    const build = Bun.spawn([process.execPath, join(ROOT, "scripts", "build.ts"), binary], { stdout: "pipe", stderr: "pipe" });
    const [stderr, code] = await Promise.all([new Response(build.stderr).text(), build.exited]);
    if (code !== 0) throw new Error(`build failed: ${stderr}`);
    return binary;
  })();
  return built;
}
