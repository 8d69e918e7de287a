import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

// The specification's limits: 30/min per IP on public endpoints, 100/min per user or key otherwise.
let server: TestServer;
beforeAll(async () => {
  // The fake clock starts on a minute: a cluster's windows (PostgreSQL) are aligned to the minute, one process's start at the first request.
  const startAt = Math.floor(Date.now() / 60_000) * 60_000;
  server = await startTestServer({ startAt, settings: { rateLimitPerMinute: "100", publicRateLimitPerMinute: "30", trustedProxies: "127.0.0.1" } });
});
afterAll(() => server.stop());

/** Each test speaks as its own client IP (through the trusted local proxy) so buckets do not mix. */
let nextIp = 1;
const asClient = () => ({ "x-forwarded-for": `198.51.100.${nextIp++}` });

describe("public endpoints: 30 per minute per IP", () => {
  test("the 31st request in a minute is 429 with a sane Retry-After; the window then resets", async () => {
    const headers = asClient();
    for (let i = 1; i <= 30; i++) {
      const res = await server.api.get("/openapi.json", { headers });
      expect(res.status).toBe(200);
      expect(res.headers.get("ratelimit-limit")).toBe("30");
      expect(res.headers.get("ratelimit-remaining")).toBe(String(30 - i));
    }
    server.clock.advance(20_000);
    const limited = await server.api.get("/openapi.json", { headers });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBe(40);
    expect(limited.headers.get("ratelimit-remaining")).toBe("0");
    expect(limited.headers.get("ratelimit-reset")).toBe("40");
    // Another client is unaffected.
    expect((await server.api.get("/openapi.json", { headers: asClient() })).status).toBe(200);
    server.clock.advance(retryAfter * 1000);
    expect((await server.api.get("/openapi.json", { headers })).status).toBe(200);
  });

  test("health is never starved by other public traffic from the same address; it has a larger bucket of its own", async () => {
    const headers = asClient();
    for (let i = 0; i < 30; i++) await server.api.get("/openapi.json", { headers });
    expect((await server.api.get("/openapi.json", { headers })).status).toBe(429);
    expect((await server.api.post("/v1/auth/login", { email: "nobody@example.com", password: "wrong-password" }, { headers })).status).toBe(429);
    for (let i = 1; i <= 300; i++) {
      const health = await server.api.get("/v1/health", { headers });
      expect(health.status).toBe(200);
      if (i === 1) expect(health.headers.get("ratelimit-limit")).toBe("300");
    }
    // Probes have a limit too (they are anonymous), just one that other traffic cannot use up.
    expect((await server.api.get("/v1/health", { headers })).status).toBe(429);
  });

  test("X-Forwarded-For is ignored unless the peer is a trusted proxy", async () => {
    const untrusted = await startTestServer({ settings: { publicRateLimitPerMinute: "2" } });
    try {
      expect((await untrusted.api.get("/openapi.json", { headers: { "x-forwarded-for": "203.0.113.1" } })).status).toBe(200);
      expect((await untrusted.api.get("/openapi.json", { headers: { "x-forwarded-for": "203.0.113.2" } })).status).toBe(200);
      // Spoofing a new address does not buy a new bucket.
      expect((await untrusted.api.get("/openapi.json", { headers: { "x-forwarded-for": "203.0.113.3" } })).status).toBe(429);
    } finally {
      await untrusted.stop();
    }
  });
});

describe("authenticated endpoints: 100 per minute per credential", () => {
  test("the 101st request with one key is 429; another key of the same workspace still works", async () => {
    const headers = asClient();
    const user = await registerUser(server.api);
    const key = await createKey(server.api, user.token, "read-only");
    const other = await createKey(server.api, user.token, "read-only");
    for (let i = 1; i <= 100; i++) {
      const res = await server.api.get("/v1/workspaces/current", { token: key.secret, headers });
      expect(res.status).toBe(200);
      if (i === 1) expect(res.headers.get("ratelimit-limit")).toBe("100");
    }
    const limited = await server.api.get("/v1/workspaces/current", { token: key.secret, headers });
    expect(limited.status).toBe(429);
    const retryAfter = Number(limited.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect((await server.api.get("/v1/workspaces/current", { token: other.secret, headers })).status).toBe(200);
  });

  test("failed authentication counts against the client IP like public traffic", async () => {
    const headers = asClient();
    for (let i = 0; i < 30; i++) expect((await server.api.get("/v1/auth/me", { token: "sk_parley_live_guess" + i, headers })).status).toBe(401);
    expect((await server.api.get("/v1/auth/me", { token: "sk_parley_live_guess", headers })).status).toBe(429);
  });

  test("every response carries RateLimit headers, errors included", async () => {
    const headers = asClient();
    for (const path of ["/v1/health", "/v1/nowhere", "/v1/auth/me"]) {
      const res = await server.api.get(path, { headers });
      expect(res.headers.get("ratelimit-limit")).not.toBeNull();
      expect(res.headers.get("ratelimit-remaining")).not.toBeNull();
      expect(res.headers.get("ratelimit-reset")).not.toBeNull();
    }
  });
});
