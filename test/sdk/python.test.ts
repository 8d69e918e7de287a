// The Python library's own unittest suite (src/sdk/python/tests) against a real Parley: from source
// (with the clock control endpoint, so token expiry and rate windows can be reached) and as the built executable.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ROOT } from "../helpers/process.ts";
import { startSdkServer, type Flavor, type SdkServer } from "./harness.ts";

const PYTHON_DIR = join(ROOT, "src", "sdk", "python");

async function runSuite(server: SdkServer): Promise<{ code: number; output: string }> {
  const child = Bun.spawn(["python3", "-m", "unittest", "discover", "-s", "src/sdk/python/tests", "-v"], {
    cwd: ROOT,
    // No __pycache__ left in the source tree.
    env: { ...process.env, ...server.env, PYTHONPATH: PYTHON_DIR, PYTHONDONTWRITEBYTECODE: "1", PYTHONUNBUFFERED: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  // Asynchronous on purpose: the source flavor's server runs in this process and must keep answering.
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, output: `${stdout}${stderr}` };
}

for (const flavor of ["source", "binary"] as Flavor[]) {
  describe(`Python library against Parley from ${flavor}`, () => {
    let server: SdkServer;
    beforeAll(async () => {
      server = await startSdkServer(flavor);
    }, 180_000);
    afterAll(async () => {
      await server?.stop();
    });

    test(
      "python3 -m unittest discover passes",
      async () => {
        const { code, output } = await runSuite(server);
        if (code !== 0) console.error(output);
        else if (process.env.PARLEY_SDK_VERBOSE) console.log(output);
        expect(code).toBe(0);
      },
      300_000,
    );
  });
}
