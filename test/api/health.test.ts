// Health (endpoint 1): what a monitor or load balancer reads. 200 once the database is migrated and the
// job runner is up; 503 "degraded", naming the failing check, when either is not. (Its rate-limit bucket
// of its own is in rate-limits.test.ts.)
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { VERSION } from "../../src/core/version.ts";
import { ON_POSTGRES, startTestServer, type TestServer } from "../helpers/server.ts";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const server of servers) await server.stop().catch(() => {});
});
const started = async () => {
  const server = await startTestServer();
  servers.push(server);
  return server;
};

describe("GET /v1/health", () => {
  test("ok with every check, the version, and uptime by the server's clock, for anyone", async () => {
    const server = await started();
    const res = await server.api.get("/v1/health");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/json");
    const migrations = readdirSync(join(import.meta.dir, "..", "..", "migrations", ...(ON_POSTGRES ? ["postgres"] : []))).filter((name) => name.endsWith(".sql")).length;
    expect(res.body).toMatchObject({
      status: "ok",
      version: VERSION,
      uptime_seconds: 0,
      checks: {
        database: { status: "ok" },
        migrations: { status: "ok", detail: `${migrations} applied` },
        vector_search: { status: "ok" },
        job_runner: { status: "ok" },
      },
    });
    expect(res.body.checks.vector_search.detail).toMatch(ON_POSTGRES ? /^in the Parley process/ : /^sqlite-vec v\d/);
    // The built-in recogniser comes from the OS: its absence is reported, and is not ill health.
    expect(["ok", "unavailable"]).toContain(res.body.checks.offline_recognition.status);
    server.clock.advance(90_500);
    expect((await server.api.get("/v1/health")).body.uptime_seconds).toBe(90);
  });

  test("a stopped job runner makes it 503 degraded, saying which check fails", async () => {
    const server = await started();
    await server.ctx.jobs.stop();
    const res = await server.api.get("/v1/health");
    expect(res.status).toBe(503);
    expect(res.body.status).toBe("degraded");
    expect(res.body.checks.job_runner).toEqual({ status: "failing", detail: "the job runner is not running" });
    expect(res.body.checks.database.status).toBe("ok");
  });

  test("a database it cannot read makes it 503 degraded, with SQLite's reason", async () => {
    const server = await started();
    server.ctx.writeBehind.close(); // its thread holds a connection of its own; nothing may write after the close below
    server.ctx.sqlite.close();
    const res = await server.api.get("/v1/health");
    expect(res.status).toBe(503);
    expect(res.body.status).toBe("degraded");
    expect(res.body.checks.database.status).toBe("failing");
    expect(res.body.checks.database.detail).toMatch(/not open/i);
    expect(res.body.checks.vector_search.status).toBe("failing");
  });
});
