// The TypeScript library (src/sdk/ts) against real servers: the journey under Bun from source against
// Parley from source, and compiled under Node and Deno against dist/parley (a browser: test/browser/sdk.test.ts);
// then what needs the server's clock (renewal of an expired session, a 429 waited out), webhook
// verification, and the contract with /openapi.json.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sdkFiles } from "../../scripts/sdk/files.ts";
import { AuthenticationError, OPERATIONS, Parley, RateLimitError, verifyWebhook, WebhookVerificationError, isAgentEvent, isWorkspaceEvent, type AgentTestCase, type TestRunWithResults } from "../../src/sdk/ts/src/index.ts";
import { ROOT } from "../helpers/process.ts";
import { startReceiver } from "../helpers/webhook-receiver.ts";
import { SDK_RATE_LIMIT, type SdkServer, startSdkServer } from "./harness.ts";

const SOURCE = join(ROOT, "src/sdk/ts/src/index.ts");

async function journey(runtime: string, sdk: string, server: SdkServer, runtimeArgs: string[] = []): Promise<string> {
  const env = { ...process.env, ...server.env, PARLEY_SDK: sdk, DENO_NO_UPDATE_CHECK: "1" };
  const child = Bun.spawn([runtime, ...runtimeArgs, join(ROOT, "test/sdk/ts-journey.mjs")], { env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (code !== 0) throw new Error(`journey failed (${code}):\n${out}\n${err}`);
  return out;
}

async function person(server: SdkServer, label: string) {
  const email = `${label}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const password = "a long enough password";
  await new Parley({ baseUrl: server.url }).auth.register({ email, password });
  return { email, password };
}

/** Moves the server's clock forward; answers the server's time (ms). */
async function advance(server: SdkServer, ms: number): Promise<number> {
  const answer = await fetch(`${server.env.PARLEY_TEST_CONTROL_URL}/advance`, { method: "POST", body: JSON.stringify({ ms }) });
  return ((await answer.json()) as { now: number }).now;
}

/** A fetch that counts the requests to each path. */
/** Counts requests by path; `lateAnswer(path, n)` holds back the answer to the n-th request to a path a while. */
function countingFetch(counts: Map<string, number>, lateAnswer?: { path: string; nth: number; ms: number }) {
  return async (input: URL, init: any) => {
    const nth = (counts.get(input.pathname) ?? 0) + 1;
    counts.set(input.pathname, nth);
    const response = await fetch(input, init);
    if (lateAnswer && lateAnswer.path === input.pathname && lateAnswer.nth === nth) await Bun.sleep(lateAnswer.ms);
    return response;
  };
}

describe("from source, under Bun", () => {
  let server: SdkServer;
  beforeAll(async () => {
    server = await startSdkServer("source");
  });
  afterAll(() => server.stop());

  test("the journey: register → key → agent → knowledge query → call → transcript and recording → campaign from a file → results", async () => {
    const out = await journey(process.execPath, SOURCE, server);
    expect(out).toContain("journey complete");
  }, 180_000);

  test("runAgentTests starts a run, reports progress as cases finish, and returns every verdict", async () => {
    const { email, password } = await person(server, "agent-tests");
    const client = new Parley({ baseUrl: server.url, email, password });
    const flow = {
      start: "name",
      nodes: {
        name: { type: "ask", text: "May I have your name?", slot: { name: "name", type: "string" }, next: "bye" },
        bye: { type: "end", text: "Thanks {{name}}, goodbye." },
      },
    };
    const agent = await client.agents.create({ name: "Name taker", first_message: "Hello, this is Acme.", brain: { type: "flow", flow } } as never);
    const one = (name: string, contains: string): AgentTestCase => ({ name, caller: { type: "script", turns: [{ say: "My name is Ada" }] }, expectations: [{ type: "agent_says", contains }], timeout_seconds: 30 });
    const seen: TestRunWithResults[] = [];
    const run = await client.runAgentTests(agent.id, { cases: [one("thanks Ada", "thanks Ada"), one("speaks French", "bonjour")], intervalMs: 200 }, (state) => seen.push(state));
    expect(run.status).toBe("failed");
    expect(run.results.map((r) => [r.name, r.status])).toEqual([["thanks Ada", "passed"], ["speaks French", "failed"]]);
    expect(run.results[1].failures[0].expectation.contains).toBe("bonjour");
    expect(seen.at(-1)).toBe(run);
  }, 60_000);

  test("an expired access token is renewed once for many concurrent calls, transparently", async () => {
    const counts = new Map<string, number>();
    const client = new Parley({ baseUrl: server.url, ...(await person(server, "renew")), fetch: countingFetch(counts) });
    const me = await client.auth.me();
    const before = client.tokens!.access_token;
    await advance(server, 16 * 60_000);
    const all = await Promise.all(Array.from({ length: 6 }, () => client.auth.me()));
    expect(all.every((m) => m.id === me.id)).toBe(true);
    expect(counts.get("/v1/auth/login")).toBe(1);
    expect(counts.get("/v1/auth/refresh")).toBe(1);
    expect(client.tokens!.access_token).not.toBe(before);
  });

  test("auth.login signs the client in; an API-key client stays on its key", async () => {
    const { email, password } = await person(server, "login");
    const client = new Parley({ baseUrl: server.url });
    await client.auth.login({ email, password });
    expect((await client.auth.me()).object).toBe("user");
    const key = (await client.apiKeys.create({ name: "k", scope: "read-only" })).key;
    const keyed = new Parley({ baseUrl: server.url, apiKey: key });
    await keyed.auth.login({ email, password });
    expect((await keyed.auth.me()).object).toBe("api_key");
  });

  test("a failed renewal surfaces as one error to every waiting call", async () => {
    const { email, password } = await person(server, "revoked");
    const signedIn = new Parley({ baseUrl: server.url, email, password });
    await signedIn.auth.me();
    const tokens = signedIn.tokens!;
    // A client holding only the tokens; the session is then signed out elsewhere and the token expires.
    const counts = new Map<string, number>();
    // One of the five 401s reaches the client only after the renewal has already failed: it still shares that failure.
    const fetchCounting = countingFetch(counts, { path: "/v1/auth/me", nth: 5, ms: 300 });
    const client = new Parley({ baseUrl: server.url, accessToken: tokens.access_token, refreshToken: tokens.refresh_token, fetch: fetchCounting });
    await signedIn.auth.logout();
    await advance(server, 16 * 60_000);
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => client.auth.me()));
    expect(outcomes.every((o) => o.status === "rejected" && o.reason instanceof AuthenticationError)).toBe(true);
    expect(new Set(outcomes.map((o) => (o as PromiseRejectedResult).reason)).size).toBe(1);
    expect(counts.get("/v1/auth/refresh")).toBe(1);
    // A request made after the failure may try again (the failure might have been passing).
    await expect(client.auth.me()).rejects.toBeInstanceOf(AuthenticationError);
    expect(counts.get("/v1/auth/refresh")).toBe(2);
  });

  test("a token store shares one session between clients (a renewal is not spent twice); logout empties it; workspaceId switches", async () => {
    const { email, password } = await person(server, "stored");
    let kept: { access_token: string; refresh_token: string } | null = null;
    const store = { get: () => kept, set: (pair: typeof kept) => void (kept = pair) };
    const counts = new Map<string, number>();
    const first = new Parley({ baseUrl: server.url, tokenStore: store, fetch: countingFetch(counts) });
    await first.auth.login({ email, password });
    expect(kept!.access_token).toBe(first.tokens!.access_token);
    const second = new Parley({ baseUrl: server.url, tokenStore: store, fetch: countingFetch(counts) }); // another tab
    await advance(server, 16 * 60_000);
    await first.auth.me(); // renews, and stores the rotated pair
    expect((await second.auth.me()).object).toBe("user"); // takes the stored pair instead of refreshing with the spent one
    expect(counts.get("/v1/auth/refresh")).toBe(1);

    const other = await first.workspaces.create({ name: "Second" });
    first.workspaceId = other.id;
    expect((await first.workspaces.current()).id).toBe(other.id);
    first.workspaceId = null;
    expect((await first.workspaces.current()).id).not.toBe(other.id);

    await second.auth.logout();
    expect(kept).toBeNull();
    expect(second.tokens).toBeNull();
  });

  test("a 429 is waited out (Retry-After), or surfaces as RateLimitError when retries are off", async () => {
    const { email, password } = await person(server, "limited");
    const key = (await new Parley({ baseUrl: server.url, email, password }).apiKeys.create({ name: "limited", scope: "read-only" })).key;
    const impatient = new Parley({ baseUrl: server.url, apiKey: key, maxRetries: 0 });
    // Just past a minute of the server's clock: a cluster's windows (PostgreSQL) start on the minute, one process's at the first request.
    const now = await advance(server, 0);
    await advance(server, 60_000 - (now % 60_000) + 50);
    await impatient.agents.list(); // the key's window starts here
    await advance(server, 58_000); // …and closes in about two seconds
    let limited: RateLimitError | null = null;
    for (let i = 0; i < SDK_RATE_LIMIT && !limited; i++) {
      await impatient.agents.list().then(
        () => undefined,
        (error) => (limited = error as RateLimitError),
      );
    }
    expect(limited).toBeInstanceOf(RateLimitError);
    expect(limited!.status).toBe(429);
    expect(limited!.retryAfter).toBeLessThanOrEqual(3);
    const patient = new Parley({ baseUrl: server.url, apiKey: key });
    const started = Date.now();
    const page = await patient.agents.list();
    expect(Array.isArray(page.data)).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(500);
  }, 30_000);

  test("webhook deliveries verify with both schemes and fail after one byte changes", async () => {
    const receiver = startReceiver();
    try {
      const admin = new Parley({ baseUrl: server.url, ...(await person(server, "hooks")) });
      const endpoint = await admin.webhooks.create({ url: receiver.url, events: ["call.completed"] });
      await admin.webhooks.test(endpoint.id);
      const agent = await admin.agents.create({ name: "Hooked", webhook_url: receiver.url });
      await admin.agents.testWebhook(agent.id);
      const deadline = Date.now() + 10_000;
      while (receiver.requests.length < 2 && Date.now() < deadline) await Bun.sleep(50);
      expect(receiver.requests.length).toBeGreaterThanOrEqual(2);
      const now = await advance(server, 0); // earlier tests moved the server's clock; signatures carry its time
      for (const delivery of receiver.requests) {
        const event = JSON.parse(delivery.body);
        const secret = "event" in event ? endpoint.secret : agent.webhook_secret;
        for (const scheme of ["standard", "brand", "any"] as const) {
          const verified = await verifyWebhook(delivery.body, delivery.headers, secret, { scheme, now });
          expect(isAgentEvent(verified) || isWorkspaceEvent(verified)).toBe(true);
          const flipped = delivery.body.replace(/"/, "'");
          await expect(verifyWebhook(flipped, delivery.headers, secret, { scheme, now })).rejects.toBeInstanceOf(WebhookVerificationError);
        }
        await expect(verifyWebhook(delivery.body, delivery.headers, `${secret}x`, { scheme: "brand" })).rejects.toBeInstanceOf(WebhookVerificationError);
        // A delivery replayed ten minutes later is refused by the timestamp check.
        await expect(verifyWebhook(delivery.body, delivery.headers, secret, { scheme: "standard", now: now + 600_000 })).rejects.toThrow("tolerance");
      }
      expect(receiver.requests.some((r) => "event" in JSON.parse(r.body))).toBe(true);
      expect(receiver.requests.some((r) => "type" in JSON.parse(r.body))).toBe(true);
    } finally {
      receiver.stop();
    }
  });

  test("every operation of /openapi.json has a method; the generated files match the served document", async () => {
    const doc = (await (await fetch(`${server.url}/openapi.json`)).json()) as any;
    const client = new Parley({ baseUrl: server.url, apiKey: "sk_unused" }) as unknown as Record<string, Record<string, unknown>>;
    const missing: string[] = [];
    for (const [path, item] of Object.entries<any>(doc.paths)) {
      for (const [verb, op] of Object.entries<any>(item)) {
        if (op["x-required-scope"] === "carrier") continue;
        const known = (OPERATIONS as Record<string, { resource: string; method: string; httpMethod: string; path: string }>)[op.operationId];
        if (!known || known.path !== path || known.httpMethod !== verb.toUpperCase() || typeof client[known.resource]?.[known.method] !== "function") missing.push(`${verb.toUpperCase()} ${path} (${op.operationId})`);
      }
    }
    expect(missing).toEqual([]);
    // Each stale file with its first differing line, so a failure says what moved.
    const stale = [...sdkFiles(doc)].flatMap(([file, content]) => {
      const lines = readFileSync(join(ROOT, file), "utf8").split("\n");
      const fresh = content.split("\n");
      const at = fresh.findIndex((line, i) => line !== lines[i]);
      return at < 0 && lines.length === fresh.length ? [] : [`${file}:${at + 1}: on disk ${JSON.stringify(lines[at])}, served ${JSON.stringify(fresh[at])}`];
    });
    expect(stale).toEqual([]);
  });
});

describe("compiled, under Node and Deno, against dist/parley", () => {
  let server: SdkServer;
  let out: string;
  beforeAll(async () => {
    out = mkdtempSync(join(tmpdir(), "parley-sdk-dist-"));
    const tsc = Bun.spawn(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "src/sdk/ts/tsconfig.json"), "--outDir", out], { stdout: "pipe", stderr: "pipe" });
    const [stdout, code] = await Promise.all([new Response(tsc.stdout).text(), tsc.exited]);
    if (code !== 0) throw new Error(`tsc failed: ${stdout}`);
    server = await startSdkServer("binary");
  }, 180_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(out, { recursive: true, force: true });
  });

  test("the same journey from the package's JavaScript, under Node and under Deno at once", async () => {
    const deno = join(ROOT, "node_modules/.bin/deno"); // the `deno` dev dependency: its binary comes in a registry package
    const [underNode, underDeno] = await Promise.all([journey("node", join(out, "index.js"), server), journey(deno, join(out, "index.js"), server, ["run", "--allow-all", "--no-prompt"])]);
    expect(underNode).toContain("journey complete");
    expect(underDeno).toContain("journey complete");
  }, 180_000);
});

test("the signatures type what comes back: a text transcript is a string, calls.wait takes maxWaitMs (tsc on test/sdk/typing)", async () => {
  const tsc = Bun.spawn(["node", join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(ROOT, "test/sdk/typing/tsconfig.json")], { stdout: "pipe", stderr: "pipe" });
  const [stdout, code] = await Promise.all([new Response(tsc.stdout).text(), tsc.exited]);
  expect({ code, stdout }).toEqual({ code: 0, stdout: "" });
}, 60_000);
