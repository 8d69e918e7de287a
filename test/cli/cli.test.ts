import { describe, expect, test } from "bun:test";
import { statSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { Database } from "../../src/db/native.ts";
import { ApiClient } from "../helpers/client.ts";
import { FROM_SOURCE, runParley, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const tempDir = tempDirs("parley-cli-");

const expectOneLineError = (result: { exitCode: number; stderr: string }, pattern: RegExp) => {
  expect(result.exitCode).not.toBe(0);
  // Informational log lines may precede it; the failure itself is exactly one line.
  const lines = result.stderr.trim().split("\n").filter((line) => line.startsWith("parley: error: "));
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(result.stderr).not.toMatch(/\bat .*:\d+:\d+/);
};

/** The start line beginning with `label`, once the server has printed it. */
async function startLine(server: ServerProcess, label: string): Promise<string> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const line = server.stderr().split("\n").find((l) => l.startsWith(label));
    if (line) return line;
    if (Date.now() > deadline) throw new Error(`no "${label}" line in:\n${server.stderr()}`);
    await Bun.sleep(20);
  }
}

/** The dashboard's page answers at `url`, with its assets under the same path. */
async function expectDashboardAt(url: string): Promise<void> {
  const page = await fetch(url);
  expect(page.status).toBe(200);
  expect(page.headers.get("content-type")).toContain("text/html");
  const html = await page.text();
  expect(html).toContain('<div id="app"></div>');
  const script = /<script type="module" src="([^"]+)"/.exec(html)![1];
  expect((await fetch(new URL(script, url))).status).toBe(200);
}

describe("operator mistakes get one clear line and a non-zero exit", () => {
  test("a bad flag", async () => {
    const result = await runParley(FROM_SOURCE, ["serve", "--prot", "8080"]);
    expectOneLineError(result, /unknown flag --prot/);
    expect(result.exitCode).toBe(2);
    expectOneLineError(await runParley(FROM_SOURCE, ["serve", "--port", "eighty"]), /--port expects a whole number/);
    expectOneLineError(await runParley(FROM_SOURCE, ["serve"], { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "0" } }), /at least 1/);
    expectOneLineError(await runParley(FROM_SOURCE, ["frobnicate"]), /unknown command/);
  });

  test("an unwritable data dir", async () => {
    const file = join(tempDir(), "not-a-dir");
    writeFileSync(file, "x");
    const result = await runParley(FROM_SOURCE, ["serve", "--port", "0", "--data-dir", join(file, "data")]);
    expectOneLineError(result, /data dir .* is not writable/);
  });

  test("a port in use, or an address of another machine, is said before anything is created", async () => {
    const blocker = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("busy") });
    const dir = join(tempDir(), "never-created");
    try {
      const result = await runParley(FROM_SOURCE, ["serve", "--host", "127.0.0.1", "--port", String(blocker.port), "--data-dir", dir]);
      expectOneLineError(result, new RegExp(`port ${blocker.port} is already in use`));
    } finally {
      blocker.stop(true);
    }
    // 192.0.2.1 is TEST-NET-1 (RFC 5737): no machine has it as its own.
    const foreign = await runParley(FROM_SOURCE, ["serve", "--host", "192.0.2.1", "--port", "18080", "--data-dir", dir]);
    expectOneLineError(foreign, /cannot listen on 192\.0\.2\.1: no such local address/);
    expect(existsSync(dir)).toBe(false);
  });

  test("bad --host and --port say so in one line and exit 2, before anything is created", async () => {
    const dir = join(tempDir(), "never-created");
    const host = await runParley(FROM_SOURCE, ["serve", "--host", "999.1.1.1", "--port", "0", "--data-dir", dir]);
    expectOneLineError(host, /--host 999\.1\.1\.1 is not an IP address or host name/);
    expect(host.exitCode).toBe(2);
    const port = await runParley(FROM_SOURCE, ["serve", "--port", "99999", "--data-dir", dir]);
    expectOneLineError(port, /--port must be between 0 and 65535, got 99999/);
    expect(port.exitCode).toBe(2);
    expect(existsSync(dir)).toBe(false);
  });

  test("a built-in recognition speed it does not have says which it has", async () => {
    const dir = join(tempDir(), "never-created");
    const result = await runParley(FROM_SOURCE, ["serve", "--builtin-recognition", "quick", "--port", "0", "--data-dir", dir]);
    expectOneLineError(result, /--builtin-recognition must be accurate or fast, got "quick"/);
    expect(result.exitCode).toBe(2);
    expect(existsSync(dir)).toBe(false);
  });

  test("a second Parley on the same port fails instead of sharing it; the first keeps serving", async () => {
    const first = await spawnServer(FROM_SOURCE, ["--data-dir", tempDir()]);
    try {
      const { port } = new URL(first.url);
      const second = await runParley(FROM_SOURCE, ["serve", "--host", "127.0.0.1", "--port", port, "--data-dir", tempDir()]);
      expectOneLineError(second, new RegExp(`port ${port} is already in use`));
      for (let i = 0; i < 20; i++) expect((await fetch(`${first.url}/v1/health`)).status).toBe(200);
    } finally {
      expect(await first.stop()).toBe(0);
    }
  });

  test("one serve per data dir: a second exits with one line while the first keeps its calls; a dead holder's lock is taken over", async () => {
    const dir = tempDir();
    const first = await spawnServer(FROM_SOURCE, ["--data-dir", dir]);
    try {
      const second = await runParley(FROM_SOURCE, ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dir]);
      expectOneLineError(second, new RegExp(`another Parley \\(pid ${first.child.pid}\\) is already serving`));
      expect((await fetch(`${first.url}/v1/health`)).status).toBe(200);
      // Commands meant to run beside a live server still do.
      expect((await runParley(FROM_SOURCE, ["backup", "--out", join(tempDir(), "beside.db"), "--data-dir", dir])).exitCode).toBe(0);
    } finally {
      expect(await first.stop()).toBe(0);
    }
    expect(existsSync(join(dir, "serve.lock"))).toBe(false);
    writeFileSync(join(dir, "serve.lock"), "999999 12345"); // what kill -9 leaves: a holder that is gone
    const next = await spawnServer(FROM_SOURCE, ["--data-dir", dir]);
    expect(await next.stop()).toBe(0);
  });

  test("the start log names the address the socket is bound to", async () => {
    const server = await spawnServer(FROM_SOURCE, ["--host", "0.0.0.0", "--data-dir", tempDir()]);
    try {
      const { port } = new URL(server.url);
      expect(server.stderr()).toContain(`Listening on 0.0.0.0:${port}`);
      expect(server.stderr()).toMatch(new RegExp(`listening on 0\\.0\\.0\\.0:${port}`));
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test("the start lines name the dashboard to open: / of the public URL, or --dashboard-url with its path", async () => {
    const plain = await spawnServer(FROM_SOURCE, ["--data-dir", tempDir()]);
    try {
      const line = await startLine(plain, "Dashboard:");
      expect(line).toBe(`Dashboard: ${plain.url}/`);
      expect(await startLine(plain, "API:")).toBe(`API:       ${plain.url}/v1   (OpenAPI: ${plain.url}/openapi.json)`);
      await expectDashboardAt(line.slice("Dashboard: ".length));
    } finally {
      expect(await plain.stop()).toBe(0);
    }
    // A port free just now: the dashboard URL must name the port the server will listen on.
    const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const port = probe.port;
    probe.stop(true);
    const underPath = await spawnServer(FROM_SOURCE, ["--port", String(port), "--dashboard-url", `http://127.0.0.1:${port}/console`, "--data-dir", tempDir()]);
    try {
      const line = await startLine(underPath, "Dashboard:");
      expect(line).toBe(`Dashboard: http://127.0.0.1:${port}/console/`);
      await expectDashboardAt(line.slice("Dashboard: ".length));
    } finally {
      expect(await underPath.stop()).toBe(0);
    }
  });

  test("commands other than serve refuse a data dir without a database, and create nothing", async () => {
    const backup = await runParley(FROM_SOURCE, ["backup", "--out", join(tempDir(), "b.db")], { cwd: "/", env: { PARLEY_DATA_DIR: "" } });
    expectOneLineError(backup, /no Parley database in \/parley-data/);
    expect(existsSync("/parley-data")).toBe(false);
    const empty = join(tempDir(), "empty");
    for (const args of [["migrate"], ["user", "create", "--email", "a@example.test", "--password-stdin"], ["key", "create", "--workspace", "ws_x", "--scope", "admin"]]) {
      expectOneLineError(await runParley(FROM_SOURCE, [...args, "--data-dir", empty], { stdin: "long enough password\n" }), /no Parley database in/);
    }
    expect(existsSync(empty)).toBe(false);
  });

  test("a migration that fails stops start-up and names it", async () => {
    const dir = tempDir();
    const db = new Database(join(dir, "parley.db"));
    db.exec("CREATE TABLE password_resets (id TEXT)"); // collides with the first migration
    db.close();
    const result = await runParley(FROM_SOURCE, ["serve", "--port", "0", "--data-dir", dir]);
    expectOneLineError(result, /migration 0000_platform_core failed: .*password_resets/);
  });
});

describe("commands", () => {
  test("version and migrate", async () => {
    const version = await runParley(FROM_SOURCE, ["version"]);
    expect(version.stdout).toMatch(/^parley \d+\.\d+\.\d+\n$/);
    const dir = tempDir();
    const first = await runParley(FROM_SOURCE, ["migrate", "--init", "--data-dir", dir]);
    expect(first.exitCode).toBe(0);
    expect(first.stdout).toMatch(/^applied \d+ migration\(s\): 0000_platform_core/);
    const second = await runParley(FROM_SOURCE, ["migrate"], { env: { PARLEY_DATA_DIR: dir } });
    expect(second.stdout).toContain("up to date");
  });

  test("flags beat env", async () => {
    const flagDir = tempDir();
    const envDir = tempDir();
    await runParley(FROM_SOURCE, ["migrate", "--init", "--data-dir", flagDir], { env: { PARLEY_DATA_DIR: envDir } });
    expect(existsSync(join(flagDir, "parley.db"))).toBe(true);
    expect(existsSync(join(envDir, "parley.db"))).toBe(false);
  });

  test("user create and key create give working credentials; the instance secret is private", async () => {
    const dir = tempDir();
    expect((await runParley(FROM_SOURCE, ["migrate", "--init", "--data-dir", dir])).exitCode).toBe(0);
    const created = await runParley(FROM_SOURCE, ["user", "create", "--email", "ops@example.test", "--password-stdin", "--operator", "--data-dir", dir], { stdin: "operator password\n" });
    expect(created.exitCode).toBe(0);
    const workspaceId = /operator workspace (ws_\w+)/.exec(created.stdout)![1];
    const again = await runParley(FROM_SOURCE, ["user", "create", "--email", "ops@example.test", "--password-stdin", "--data-dir", dir], { stdin: "operator password\n" });
    expect(again.exitCode).toBe(1);
    const key = await runParley(FROM_SOURCE, ["key", "create", "--workspace", workspaceId, "--scope", "admin", "--data-dir", dir]);
    expect(key.exitCode).toBe(0);
    const secret = key.stdout.trim();
    expect(secret).toMatch(/^sk_parley_live_/);
    expect((Bun.file(join(dir, "instance.key")) as any).size).toBeGreaterThan(0);
    const mode = (await import("node:fs")).statSync(join(dir, "instance.key")).mode & 0o777;
    expect(mode).toBe(0o600);

    expect(statSync(join(dir, "parley.db")).mode & 0o777).toBe(0o600);
    const server = await spawnServer(FROM_SOURCE, ["--data-dir", dir]);
    try {
      for (const file of ["parley.db-wal", "parley.db-shm"]) expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);
      const api = new ApiClient(server.url);
      const me = await api.get("/v1/auth/me", { token: secret });
      expect(me.body.workspace).toMatchObject({ id: workspaceId, is_operator: true });
      const login = await api.post("/v1/auth/login", { email: "ops@example.test", password: "operator password" });
      expect(login.status).toBe(200);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  test("SIGTERM lets in-flight requests finish, then closes the database cleanly", async () => {
    const dir = tempDir();
    const server = await spawnServer(FROM_SOURCE, ["--data-dir", dir]);
    // A request is surely in flight when the signal lands: its headers and half its body are in,
    // the rest is only sent once the server has said it is shutting down.
    const request = await openRawRequest(server.url, "/v1/auth/register", JSON.stringify({ email: "late@example.test", password: "long enough pass" }));
    const exit = server.stop();
    for (let i = 0; i < 200 && !server.stderr().includes("shutting down"); i++) await Bun.sleep(10);
    expect(server.stderr()).toContain("shutting down");
    const response = await request.finish();
    expect(response).toStartWith("HTTP/1.1 201");
    expect(await exit).toBe(0);
    expect(server.stderr()).toContain("stopped cleanly");
    await expect(fetch(server.url + "/v1/health")).rejects.toThrow();
    expect(existsSync(join(dir, "parley.db-wal")) ? Bun.file(join(dir, "parley.db-wal")).size : 0).toBe(0);
    const db = new Database(join(dir, "parley.db"), { readonly: true });
    expect((db.prepare("SELECT count(*) AS n FROM users").get() as { n: number }).n).toBe(1);
    db.close();
  });
});

/**
 * A POST over a raw socket on a connection the server has already served once (so it is accepted,
 * not waiting in the listen backlog): headers and the first half of the body go now, the rest on `finish`.
 */
async function openRawRequest(base: string, path: string, body: string) {
  const { hostname, port } = new URL(base);
  let received = "";
  let responded: () => void = () => {};
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_socket, chunk) {
        received += chunk.toString();
        responded();
      },
    },
  });
  const waitFor = async (pattern: RegExp) => {
    while (!pattern.test(received)) await new Promise<void>((resolve) => (responded = resolve));
  };
  socket.write(`GET /v1/health HTTP/1.1\r\nhost: ${hostname}\r\n\r\n`);
  await waitFor(/"status":"ok".*\}$/s);
  received = "";
  const half = Math.floor(body.length / 2);
  socket.write(`POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body.slice(0, half)}`);
  await Bun.sleep(50);
  return {
    async finish(): Promise<string> {
      socket.write(body.slice(half));
      await waitFor(/\r\n\r\n\{.*\}$/s);
      socket.end();
      return received;
    },
  };
}
