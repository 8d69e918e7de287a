// The executable carries its recogniser: copied into an empty root that holds only the system libraries
// the executable itself links (no PocketSphinx, no BLAS/LAPACK, no model), it still understands a caller.
// The root is a chroot inside a private mount namespace (for /proc), so it needs root, as CI runs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { ApiClient } from "../helpers/client.ts";
import { builtBinary } from "../helpers/binary.ts";
import { ROOT, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { pocketsphinxAvailability } from "../../src/voice/speech/builtin/index.ts";

// The build embeds the recogniser only where the OS has it (CI installs it).
const [unshare, mount, chroot] = ["unshare", "mount", "chroot"].map((program) => Bun.which(program, { PATH: "/usr/sbin:/usr/bin:/sbin:/bin" }));
/** Root may still be refused a mount namespace (an unprivileged container): nothing to test there. */
const namespaces = process.getuid?.() === 0 && unshare !== null && Bun.spawnSync([unshare, "--mount", "true"]).success;
const runnable = namespaces && mount !== null && chroot !== null && pocketsphinxAvailability().available;
const root = mkdtempSync(join(tmpdir(), "parley-bare-root-"));
let server: ServerProcess;

/** What the dynamic loader resolves for `file`, the loader itself included. */
function linkedFiles(file: string): string[] {
  const ldd = Bun.spawnSync(["ldd", file]).stdout.toString();
  return [...ldd.matchAll(/(?:=> )?(\/\S+) \(0x/g)].map((match) => match[1]);
}

beforeAll(async () => {
  if (!runnable) return;
  const binary = await builtBinary();
  for (const dir of ["proc", "dev", "tmp", "data"]) mkdirSync(join(root, dir));
  try {
    linkSync(binary, join(root, "parley"));
  } catch {
    copyFileSync(binary, join(root, "parley"));
  }
  // The system libraries of the executable and of the native pieces it embeds (better-sqlite3 needs libstdc++), nothing else.
  const natives = [binary, join(ROOT, "node_modules/better-sqlite3/prebuilds/linux-x64.node"), join(ROOT, "node_modules/sqlite-vec-linux-x64/vec0.so")];
  for (const library of new Set(natives.flatMap(linkedFiles))) {
    mkdirSync(join(root, dirname(library)), { recursive: true });
    copyFileSync(library, join(root, library));
  }
  // A private mount namespace: /proc (where the executable reads itself from) and /dev (PocketSphinx logs to
  // /dev/null) appear in the root for this process only.
  const enter = `${mount} --rbind /proc ${root}/proc && ${mount} --rbind /dev ${root}/dev && exec ${chroot} ${root} /parley "$@"`;
  server = await spawnServer([unshare!, "--mount", "/bin/sh", "-c", enter, "sh"], ["--data-dir", "/data"], { cwd: "/", env: { PATH: "/usr/bin:/bin", HOME: "/tmp" } });
}, 120_000);

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  rmSync(root, { recursive: true, force: true });
});

describe.skipIf(!runnable)("the executable in a root without PocketSphinx", () => {
  test("has no PocketSphinx, BLAS or model of the system to fall back on", () => {
    const libraries = readdirSync(join(root, "lib", "x86_64-linux-gnu"));
    expect(libraries.filter((name) => /sphinx|blas|lapack|gfortran|quadmath/.test(name))).toEqual([]);
    expect(existsSync(join(root, "usr", "share", "pocketsphinx"))).toBe(false);
  });

  test("answers health with the offline recogniser it carries, extracted to the data dir's cache", async () => {
    const health = await new ApiClient(server.url).get("/v1/health");
    expect(health.status).toBe(200);
    expect(health.body.checks.offline_recognition).toEqual({ status: "ok", detail: "PocketSphinx (US English), carried by this executable" });
    const cached = readdirSync(join(root, "data", "cache")).filter((name) => name.startsWith("pocketsphinx-"));
    expect(cached).toHaveLength(1);
    expect(readdirSync(join(root, "data", "cache", cached[0], "lib"))).toContain("libpocketsphinx.so.3");
    expect(existsSync(join(root, "data", "cache", cached[0], "model", "en-us.lm.bin"))).toBe(true);
  });

  test("understands a spoken question in a simulated call", async () => {
    const api = new ApiClient(server.url);
    const registered = await api.post("/v1/auth/register", { email: "bare@example.test", password: "long enough pass" });
    expect(registered.status).toBe(201);
    const token = (await api.post("/v1/auth/login", { email: "bare@example.test", password: "long enough pass" })).body.access_token;
    const agent = await api.post("/v1/agents", { name: "Bare agent", first_message: "Hello from a bare machine." }, { token });
    const number = await api.post("/v1/phone-numbers/buy", { area_code: "617" }, { token });
    await api.post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: agent.body.id }, { token });
    const placed = await api.post("/v1/calls/outbound", { agent_id: agent.body.id, to: "+16175550150", simulation: { lines: ["What are your opening hours?"], recognition: "agent" } }, { token });
    expect(placed.status).toBe(201);
    const callerTurns = (call: { transcript?: { role: string; text: string }[] }) => (call.transcript ?? []).filter((turn) => turn.role === "caller");
    let call = placed.body;
    // Polled once a second (the binary runs with the default rate limit) until the question is transcribed.
    for (let i = 0; i < 30 && callerTurns(call).length === 0 && ["queued", "ringing", "in_progress"].includes(call.status); i++) {
      await Bun.sleep(1000);
      call = (await api.get(`/v1/calls/${placed.body.id}`, { token })).body;
    }
    await api.post(`/v1/calls/${call.id}/hangup`, {}, { token });
    expect(callerTurns(call).map((turn) => turn.text.toLowerCase())).toEqual([expect.stringContaining("opening hours")]);
    const events = await api.get(`/v1/calls/${call.id}/events`, { token });
    expect(events.body.data.find((e: { type: string }) => e.type === "engines").data).toMatchObject({ stt: "builtin:pocketsphinx" });
    expect(events.body.data.filter((e: { type: string }) => e.type === "error")).toEqual([]);
  }, 60_000);
});
