// The README's SIP walk-through ("Try it with baresip"), exactly as written, with Debian's baresip 1.0,
// against a freshly started server, in the state the quickstart leaves a shell in ($TOKEN, $AGENT):
// the phone calls the agent, and its recording holds the agent's greeting.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeWav } from "../../src/voice/media/wav-format.ts";
import { builtinStt } from "../../src/voice/speech/builtin/index.ts";
import { baresipAvailable } from "../helpers/baresip.ts";
import { FROM_SOURCE, ROOT, spawnServer, type ServerProcess } from "../helpers/process.ts";

const GREETING = "Hello, you have reached Acme. How can I help?";
const home = mkdtempSync(join(tmpdir(), "parley-sip-walkthrough-"));
let server: ServerProcess;
let quickstart: { TOKEN: string; AGENT: string; KEY: string };

/** The sh block that follows `<!-- sip-baresip -->` in README.md. */
function walkthrough(): string {
  const match = /<!-- sip-baresip -->\n```sh\n([\s\S]*?)\n```/.exec(readFileSync(join(ROOT, "README.md"), "utf8"));
  if (!match) throw new Error("README.md has no sip-baresip block");
  return match[1];
}

/** What the offline recogniser makes of a WAV file. */
async function words(path: string): Promise<string> {
  const wav = decodeWav(new Uint8Array(readFileSync(path)));
  const session = builtinStt().start({ language: "en-US", sampleRate: wav.info.sampleRate });
  session.write(wav.samples);
  return (await session.finish()).text.toLowerCase();
}

describe.skipIf(!baresipAvailable)("the README's SIP walk-through with baresip", () => {
  beforeAll(async () => {
    server = await spawnServer(FROM_SOURCE, ["--data-dir", join(home, "data")]);
    // What the quickstart's steps 1 and 2 leave in the shell.
    const post = async (path: string, body: unknown, bearer?: string) => {
      const response = await fetch(server.url + path, { method: "POST", headers: { "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
      return (await response.json()) as any;
    };
    const TOKEN = (await post("/v1/auth/register", { email: "sip-walkthrough@example.com", password: "a long password" })).access_token;
    const KEY = (await post("/v1/api-keys", { name: "quickstart", scope: "write" }, TOKEN)).key;
    const AGENT = (await post("/v1/agents", { name: "Front desk", first_message: GREETING }, KEY)).id;
    quickstart = { TOKEN, AGENT, KEY };
  });
  afterAll(async () => {
    expect(await server.stop()).toBe(0);
    rmSync(home, { recursive: true, force: true });
  });

  test("run as written: the phone calls the agent's number, the call completes, and baresip's recording holds the greeting", async () => {
    const run = Bun.spawn(["bash", "-euo", "pipefail", "-c", walkthrough()], {
      cwd: home,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, PARLEY_URL: server.url, TOKEN: quickstart.TOKEN, AGENT: quickstart.AGENT },
      // A terminal's stdin stays open: baresip's stdio module reads commands from it.
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
    run.stdin.end();
    expect({ code, stderr: code === 0 ? "" : stderr.slice(-3000) }).toEqual({ code: 0, stderr: "" });
    // The trunk this block made took its port (a port taken elsewhere would send the call elsewhere).
    expect(stdout).toContain("state: 'listening'");
    expect(stdout).toContain("listen_port: 5062");
    expect(stdout).toMatch(/^call call_\w+: inbound completed \(customer_hangup\)$/m);

    // The block lists the recording of what the phone heard: one call, one file.
    const listed = stdout.trim().split("\n").at(-1)!;
    const recordings = readdirSync(join(home, "baresip-calls")).filter((name) => name.endsWith("-dec.wav"));
    expect(recordings).toHaveLength(1);
    expect(listed).toBe(join(home, "baresip-calls", recordings[0]));
    const wav = decodeWav(new Uint8Array(readFileSync(listed)));
    expect(wav.info.sampleRate).toBe(8000);
    expect(wav.samples.length / 8000).toBeGreaterThan(7); // the call lasted until baresip quit
    expect(await words(listed)).toContain("how can i help");

    // Parley's side: the agent's greeting, spoken on the trunk this block made.
    const calls = (await (await fetch(`${server.url}/v1/calls?limit=1`, { headers: { authorization: `Bearer ${quickstart.KEY}` } })).json()) as any;
    expect(calls.data[0].transcript[0]).toMatchObject({ role: "agent", text: GREETING });
  }, 90_000);
});
