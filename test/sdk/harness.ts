// A real Parley for the client libraries' tests: from source (in this process, with a clock the tests
// may move forward through a control endpoint) or the compiled executable (a child process).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtBinary } from "../helpers/binary.ts";
import { spawnServer } from "../helpers/process.ts";
import { ShiftedClock, startTestServer } from "../helpers/server.ts";

export type Flavor = "source" | "binary";

/** Per user or key: low enough that a test reaches it in a moment, high enough that a journey never does. */
export const SDK_RATE_LIMIT = 300;

export interface SdkServer {
  flavor: Flavor;
  url: string;
  /** Environment for a library's own test runner (PARLEY_URL, and PARLEY_TEST_CONTROL_URL from source). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startSdkServer(flavor: Flavor): Promise<SdkServer> {
  const settings = { rateLimitPerMinute: String(SDK_RATE_LIMIT) };
  if (flavor === "source") {
    const clock = new ShiftedClock();
    const server = await startTestServer({ settings, clock });
    // POST /advance {"ms": n}: the tests' only way to move the server's clock.
    const control = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      async fetch(request) {
        if (request.method !== "POST" || new URL(request.url).pathname !== "/advance") return new Response("not found", { status: 404 });
        const { ms } = (await request.json()) as { ms: number };
        clock.advance(Number(ms));
        return Response.json({ now: clock.now() });
      },
    });
    return {
      flavor,
      url: server.url,
      env: { PARLEY_URL: server.url, PARLEY_TEST_CONTROL_URL: `http://127.0.0.1:${control.port}`, PARLEY_TEST_FLAVOR: flavor },
      async stop() {
        control.stop(true);
        await server.stop();
      },
    };
  }
  const binary = await builtBinary();
  const dataDir = mkdtempSync(join(tmpdir(), "parley-sdk-bin-"));
  const child = await spawnServer([binary], ["--data-dir", dataDir, "--allow-private-urls", "--rate-limit-per-minute", String(SDK_RATE_LIMIT), "--public-rate-limit-per-minute", "100000"], {
    cwd: "/",
    env: { PATH: "/usr/bin:/bin", HOME: dataDir },
  });
  return {
    flavor,
    url: child.url,
    env: { PARLEY_URL: child.url, PARLEY_TEST_FLAVOR: flavor },
    async stop() {
      await child.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
