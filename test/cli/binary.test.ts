// The product is one file: build it, run it from `/` with no node_modules in sight, and use it.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiClient } from "../helpers/client.ts";
import { buildPdf } from "../helpers/pdf.ts";
import { pocketsphinxAvailability } from "../../src/voice/speech/builtin/index.ts";
import { builtBinary } from "../helpers/binary.ts";
import { runParley, spawnServer, type ServerProcess } from "../helpers/process.ts";

const work = mkdtempSync(join(tmpdir(), "parley-binary-"));
let binary: string;
let server: ServerProcess;

beforeAll(async () => {
  binary = await builtBinary(); // built once per run, shared with the client libraries' tests
  // A clean environment: no PATH to bun, no NODE_PATH, run from the filesystem root.
  server = await spawnServer([binary], ["--data-dir", join(work, "data")], { cwd: "/", env: { PATH: "/usr/bin:/bin", HOME: work } });
}, 120_000);

afterAll(async () => {
  if (server) expect(await server.stop()).toBe(0);
  rmSync(work, { recursive: true, force: true });
});

describe("the compiled executable", () => {
  test("prints its version", async () => {
    const result = await runParley([binary], ["version"], { cwd: "/" });
    expect(result.stdout).toMatch(/^parley \d+\.\d+\.\d+/);
  });

  test("serves health, register, login and an authenticated call", async () => {
    const api = new ApiClient(server.url);
    const health = await api.get("/v1/health");
    expect(health.status).toBe(200);
    expect(health.body.status).toBe("ok");
    expect(health.body.checks.vector_search).toEqual({ status: "ok", detail: expect.stringMatching(/^sqlite-vec v/) });
    expect(health.body.checks.offline_recognition.status).toBe(pocketsphinxAvailability().available ? "ok" : "unavailable");
    const registered = await api.post("/v1/auth/register", { email: "binary@example.test", password: "long enough pass" });
    expect(registered.status).toBe(201);
    const login = await api.post("/v1/auth/login", { email: "binary@example.test", password: "long enough pass" });
    expect(login.status).toBe(200);
    const key = await api.post("/v1/api-keys", { name: "smoke", scope: "read-only" }, { token: login.body.access_token });
    expect(key.status).toBe(201);
    const me = await api.get("/v1/auth/me", { token: key.body.key });
    expect(me.status).toBe(200);
    expect(me.body.workspace.id).toBe(registered.body.workspace.id);
    // The key's audit row is committed by the write-behind's thread, a second entry the executable embeds.
    const audit = await api.get("/v1/audit-log?limit=1", { token: login.body.access_token });
    expect(audit.body.data[0]).toMatchObject({ action: "getMe", status: 200, api_key_id: key.body.id });
    expect(server.stderr()).not.toContain("write-behind");
  });

  test("indexes and searches a knowledge base with the embedded offline embedder and PDF reader", async () => {
    const api = new ApiClient(server.url);
    const login = await api.post("/v1/auth/login", { email: "binary@example.test", password: "long enough pass" });
    const token = login.body.access_token;
    const kb = await api.post("/v1/knowledge-base", { name: "Binary KB" }, { token });
    const form = new FormData();
    form.append("file", new File([buildPdf({ pages: [["Returns"], ["Items can be returned within thirty days for a full refund."]] })], "returns.pdf", { type: "application/pdf" }));
    const added = await fetch(`${server.url}/v1/knowledge-base/${kb.body.id}/sources`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
    expect(added.status).toBe(202);
    const source = (await added.json()) as { id: string };
    let status = "pending";
    for (let i = 0; i < 200 && (status === "pending" || status === "indexing"); i++) {
      await Bun.sleep(50);
      status = (await api.get(`/v1/knowledge-base/${kb.body.id}/sources/${source.id}`, { token })).body.status;
    }
    expect(status).toBe("ready");
    const hits = await api.post(`/v1/knowledge-base/${kb.body.id}/query`, { query: "can I get a refund" }, { token });
    expect(hits.body.data[0].text).toContain("full refund");
  });

  test("holds a phone call with the built-in engines: Flite speaks, VAD and PocketSphinx listen, MP3 recording", async () => {
    const api = new ApiClient(server.url);
    const login = await api.post("/v1/auth/login", { email: "binary@example.test", password: "long enough pass" });
    const token = login.body.access_token;
    const agent = await api.post("/v1/agents", { name: "Binary agent", first_message: "Hello from the binary." }, { token });
    const number = await api.post("/v1/phone-numbers/buy", { area_code: "617" }, { token });
    await api.post(`/v1/phone-numbers/${number.body.id}/assign`, { agent_id: agent.body.id }, { token });
    // Real recognition when the OS has PocketSphinx (CI installs it); the simulated recogniser otherwise.
    const recognition = pocketsphinxAvailability().available ? "agent" : "simulated";
    const placed = await api.post("/v1/calls/outbound", { agent_id: agent.body.id, to: "+16175550150", simulation: { lines: ["Thank you very much, goodbye."], recognition } }, { token });
    expect(placed.status).toBe(201);
    let call = placed.body;
    // Polled once a second: the binary runs with the default rate limit.
    for (let i = 0; i < 40 && ["queued", "ringing", "in_progress"].includes(call.status); i++) {
      await Bun.sleep(1000);
      call = (await api.get(`/v1/calls/${placed.body.id}`, { token })).body;
    }
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    expect(call.transcript[0]).toMatchObject({ role: "agent", text: "Hello from the binary." });
    expect(call.transcript.some((turn: { role: string; text: string }) => turn.role === "caller" && /goodbye/i.test(turn.text))).toBe(true);
    const events = await api.get(`/v1/calls/${call.id}/events`, { token });
    expect(events.body.data.find((e: { type: string }) => e.type === "engines").data).toMatchObject({ tts: "builtin:flite", stt: recognition === "agent" ? "builtin:pocketsphinx" : "simulated" });
    const mp3 = await fetch(`${server.url}/v1/calls/${call.id}/recording.mp3`, { headers: { authorization: `Bearer ${token}` } });
    expect(mp3.status).toBe(200);
    const bytes = new Uint8Array(await mp3.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(4000);
    expect(bytes[0] === 0xff || String.fromCharCode(...bytes.subarray(0, 3)) === "ID3").toBe(true);
  }, 60_000);

  test("extracted sqlite-vec into the data dir's cache before loading it", async () => {
    expect(await Bun.file(join(work, "data", "cache", "vec0.so")).exists()).toBe(true);
  });

  // Built where PocketSphinx is installed (as in CI), the executable listens with its own copy even where the OS has one.
  test.skipIf(!pocketsphinxAvailability().available)("recognises with the PocketSphinx it carries, extracted to the data dir's cache", async () => {
    const health = await new ApiClient(server.url).get("/v1/health");
    expect(health.body.checks.offline_recognition).toEqual({ status: "ok", detail: "PocketSphinx (US English), carried by this executable" });
    expect(readdirSync(join(work, "data", "cache")).filter((name) => name.startsWith("pocketsphinx-"))).toHaveLength(1);
  });
});
