// The PostgreSQL server going away under a running Parley (issue 35): requests answer 503
// service_unavailable with Retry-After meanwhile, health says the database is down (since when, why,
// never the password), Parley reconnects by itself once the server is back, and nothing is lost or
// half-written: every write answered 2xx is there with all its rows, every write answered 503 left
// nothing. Each test has a PostgreSQL server of its own (it is stopped), and Parley runs in a process of
// its own, so traffic goes on while the test stops and starts the server and kills backends.
import { SQL } from "bun";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseUnavailableError } from "../../src/db/postgres/errors.ts";
import { openPostgres } from "../../src/db/postgres/connect.ts";
import type { SyncPostgres } from "../../src/db/postgres/sync-client.ts";
import { ApiClient, type ApiResponse } from "../helpers/client.ts";
import { createKey, registerUser } from "../helpers/fixtures.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";
import { FROM_SOURCE, spawnServer, type ServerProcess } from "../helpers/process.ts";

const root = mkdtempSync(join(tmpdir(), "parley-pgoutage-"));
const cleanup: (() => unknown)[] = [];
// Each step on its own: a failed one must not leave the servers after it running.
afterAll(async () => {
  for (const step of cleanup.reverse()) await Promise.resolve().then(step).catch(() => {});
  rmSync(root, { recursive: true, force: true });
}, 60_000);

/** A PostgreSQL server of the test's own, a database on it, and the URL with a password (trust ignores it). */
function ownServer(database: string): { pg: PostgresServer; url: string } {
  const pg = startPostgres();
  cleanup.push(() => pg.stop());
  pg.sql(`CREATE DATABASE ${database}`);
  return { pg, url: `postgres://parley:s3cret-word@127.0.0.1:${pg.port}/${database}?sslmode=disable` };
}

async function parleyOn(url: string): Promise<{ server: ServerProcess; api: ApiClient; key: string }> {
  const server = await spawnServer(FROM_SOURCE, ["--data-dir", mkdtempSync(join(root, "data-")), "--database-url", url], { env: { PARLEY_RATE_LIMIT_PER_MINUTE: "1000000" } });
  cleanup.push(() => server.stop());
  const api = new ApiClient(server.url);
  const user = await registerUser(api, "outage");
  return { server, api, key: (await createKey(api, user.token, "write")).secret };
}

/** The postmaster and its children (backends, background workers), from /proc. */
function serverProcesses(pg: PostgresServer): number[] {
  const postmaster = Number(readFileSync(join(pg.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  const parentOf = (pid: string) => {
    try {
      return Number(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ")[1]);
    } catch {
      return 0; // gone meanwhile
    }
  };
  return [postmaster, ...readdirSync("/proc").filter((name) => /^\d+$/.test(name) && parentOf(name) === postmaster).map(Number)];
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

function expectUnavailable(res: ApiResponse) {
  expect(res.status).toBe(503);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(res.body.code).toBe("service_unavailable");
  expect(res.headers.get("retry-after")).toBe("5");
  expect(res.text).not.toContain("s3cret-word");
}

describe("the PostgreSQL server stopped and started under steady traffic", () => {
  test("503 with Retry-After and health down meanwhile, recovery without a restart, every 2xx write whole and every 503 write absent", async () => {
    const { pg, url } = ownServer("outage_traffic");
    const { server, api, key } = await parleyOn(url);
    const answers = new Map<string, number>(); // agent name -> status of its POST
    const reads: number[] = [];
    let stopping = false;
    let n = 0;
    const writer = async () => {
      while (!stopping) {
        const name = `agent ${++n}`;
        const res = await api.post("/v1/agents", { name, first_message: `Hello from ${name}` }, { token: key });
        answers.set(name, res.status);
        if (res.status !== 201) expectUnavailable(res);
      }
    };
    const reader = async () => {
      while (!stopping) {
        const res = await api.get("/v1/agents?limit=5", { token: key });
        reads.push(res.status);
        if (res.status !== 200) expectUnavailable(res);
      }
    };
    const traffic = Promise.all([writer(), writer(), writer(), reader()]);
    const created = () => [...answers.values()].filter((status) => status === 201).length;
    await until("writes before the outage", async () => (created() >= 20 ? true : undefined));

    pg.stop();
    const stoppedAt = Date.now();
    const refusedAtStop = [...answers.values()].filter((status) => status === 503).length;
    // Traffic goes on against the stopped server: refused, and said so, at once.
    await until("refusals during the outage", async () => ([...answers.values()].filter((status) => status === 503).length >= refusedAtStop + 20 ? true : undefined));
    const health = await api.get("/v1/health");
    expect(health.status).toBe(503);
    expect(health.body.status).toBe("degraded");
    // Public traffic's limit is counted by the node alone meanwhile (the shared counter is out of reach), not failed.
    const spec = await api.get("/openapi.json");
    expect(spec.status).toBe(200);
    expect(spec.headers.get("ratelimit-limit")).not.toBeNull();
    expect(health.body.checks.database.status).toBe("failing");
    expect(health.body.checks.database.detail).toMatch(new RegExp(`database is unavailable: .*127\\.0\\.0\\.1:${pg.port}`));
    expect(health.text).not.toContain("s3cret-word");
    const since = Date.parse(health.body.checks.database.since);
    expect(since).toBeGreaterThanOrEqual(stoppedAt - 5_000);
    expect(since).toBeLessThanOrEqual(Date.now());
    expect(health.body.checks.job_runner.status).toBe("ok"); // the runner polls on, failing, and lives

    pg.start();
    const startedAt = Date.now();
    // Recovery by itself: no restart of Parley, within a few reconnect intervals.
    await until("the first write after the restart", async () => ((await api.post("/v1/agents", { name: `after ${Date.now()}` }, { token: key })).status === 201 ? true : undefined));
    const recoveredMs = Date.now() - startedAt;
    expect(recoveredMs).toBeLessThan(5_000);
    const healthy = await api.get("/v1/health");
    expect(healthy.body.checks.database).toEqual({ status: "ok" });
    const afterRestart = created();
    await until("writes after the outage", async () => (created() >= afterRestart + 20 ? true : undefined));
    stopping = true;
    await traffic;
    expect(reads.filter((status) => status === 200).length).toBeGreaterThan(0);

    // Nothing lost, nothing half-written.
    const database = "outage_traffic";
    const stored = new Set(pg.sql("SELECT name FROM agents WHERE name LIKE 'agent %'", database).split("\n").filter(Boolean));
    const ok = [...answers].filter(([, status]) => status === 201).map(([name]) => name);
    const refused = [...answers].filter(([, status]) => status === 503).map(([name]) => name);
    expect(ok.length + refused.length).toBe(answers.size);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    expect(ok.filter((name) => !stored.has(name))).toEqual([]);
    expect(refused.filter((name) => stored.has(name))).toEqual([]);
    expect(stored.size).toBe(ok.length);
    // Each agent with its first version, from the one transaction that wrote both.
    expect(pg.sql("SELECT count(*) FROM agents a WHERE NOT EXISTS (SELECT 1 FROM agent_versions v WHERE v.agent_id = a.id)", database)).toBe("0");
    expect(pg.sql("SELECT count(*) FROM agent_versions v WHERE NOT EXISTS (SELECT 1 FROM agents a WHERE a.id = v.agent_id)", database)).toBe("0");
    // The audit rows written behind the requests were held through the outage, not dropped.
    await until("the held audit rows", async () => (Number(pg.sql("SELECT count(*) FROM audit_log WHERE method = 'POST' AND path = '/v1/agents' AND status = 201", database)) === ok.length + 1 ? true : undefined));

    const log = server.stderr();
    // One line for the outage, not one per refused request.
    expect(log.split("\n").filter((line) => line.includes("ERROR") && line.includes("the database server cannot be reached"))).toHaveLength(1);
    expect(log).not.toContain("s3cret-word");
    expect(server.child.exitCode).toBeNull(); // it never crashed
    console.log(`outage: ${ok.length} writes answered 201, ${refused.length} answered 503, ${reads.length} reads; recovered ${recoveredMs} ms after the server was back`);
  }, 60_000);
});

describe("a connection lost in the middle of a transaction", () => {
  test("a backend killed while an agent's transaction waits leaves no agent, answers 503, and the next write goes through", async () => {
    const database = "outage_midway";
    const { pg, url } = ownServer(database);
    const { api, key } = await parleyOn(url);
    expect((await api.post("/v1/agents", { name: "before" }, { token: key })).status).toBe(201);
    // The test's own connection holds agent_versions, so Parley's transaction stops after its agents row.
    const own = new SQL({ url: pg.url(database), max: 2 });
    cleanup.push(() => own.close());
    const holder = await own.reserve();
    await holder`BEGIN`;
    await holder`LOCK TABLE agent_versions IN EXCLUSIVE MODE`;
    const pending = api.post("/v1/agents", { name: "midway" }, { token: key });
    const waiting = await until("Parley's transaction waiting on the lock", async () => {
      const rows = await own`SELECT pid FROM pg_stat_activity WHERE datname = ${database} AND wait_event_type = 'Lock'`;
      return rows.length ? (rows[0].pid as number) : undefined;
    });
    // The agents row is written, uncommitted, when its connection dies.
    await own`SELECT pg_terminate_backend(${waiting})`;
    await holder`ROLLBACK`;
    holder.release();
    expectUnavailable(await pending);
    expect(pg.sql("SELECT count(*) FROM agents WHERE name = 'midway'", database)).toBe("0");
    await until("a write on the new connection", async () => ((await api.post("/v1/agents", { name: "after" }, { token: key })).status === 201 ? true : undefined));
    expect(pg.sql("SELECT name FROM agents ORDER BY name", database).split("\n")).toEqual(["after", "before"]);
  }, 30_000);
});

describe("what is sent again after a lost connection, and what is not", () => {
  // A separate process terminates the backend while this thread waits on the statement.
  function terminateAfter(pg: PostgresServer, ms: number, application: string) {
    return Bun.spawn(["psql", "-X", "-q", "-h", "127.0.0.1", "-p", String(pg.port), "-U", "parley", "-d", "postgres", "-c", `SELECT pg_sleep(${ms / 1000}); SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '${application}'`], { stdout: "ignore", stderr: "ignore" });
  }

  let opened: { pg: PostgresServer; db: SyncPostgres } | null = null;
  const probe = () => {
    if (opened) return opened;
    const { pg } = ownServer("outage_resend");
    const { db } = openPostgres(`postgres://parley@127.0.0.1:${pg.port}/outage_resend?sslmode=disable&application_name=resend_probe`);
    cleanup.push(() => db.close());
    db.exec("CREATE TABLE marks (n bigint)");
    opened = { pg, db };
    return opened;
  };

  test("a read whose connection breaks under it is sent once more on a new connection; a write is reported, not re-sent; a read cut after a second is reported", async () => {
    const { pg, db } = probe();

    let killer = terminateAfter(pg, 200, "resend_probe");
    expect(db.prepare("SELECT 7 AS n FROM pg_sleep(0.6)").get()).toEqual({ n: 7 });
    await killer.exited;

    killer = terminateAfter(pg, 200, "resend_probe");
    expect(() => db.prepare("INSERT INTO marks SELECT 1 FROM pg_sleep(0.6)").run()).toThrow(DatabaseUnavailableError);
    await killer.exited;
    await until("the thread's new connection", async () => (db.health().state === "up" ? true : undefined)); // made at once, in the background
    expect(db.prepare("SELECT count(*) AS n FROM marks").get()).toEqual({ n: 0 }); // it ran once, and was rolled back

    killer = terminateAfter(pg, 1_300, "resend_probe");
    expect(() => db.prepare("SELECT 1 FROM pg_sleep(2)").get()).toThrow(DatabaseUnavailableError);
    await killer.exited;
    await until("the thread's new connection", async () => (db.health().state === "up" ? true : undefined));
    expect(db.prepare("SELECT 1 AS n").get()).toEqual({ n: 1 });
  }, 30_000);

  test("a transaction whose connection dies between its statements commits none of them, even when its code carries on", async () => {
    const { pg, db } = probe();
    const killer = terminateAfter(pg, 200, "resend_probe");
    const errors: unknown[] = [];
    const transaction = db.transaction(() => {
      db.prepare("INSERT INTO marks VALUES (1)").run();
      Bun.sleepSync(1_500); // the backend is terminated meanwhile, and the thread has a new connection by the end
      try {
        db.prepare("INSERT INTO marks VALUES (2)").run();
      } catch (error) {
        errors.push(error); // code that shrugs an error off must still not write outside its transaction
      }
      db.prepare("INSERT INTO marks VALUES (3)").run();
    });
    expect(() => transaction()).toThrow(/lost during this transaction/);
    await killer.exited;
    expect(errors[0]).toBeInstanceOf(DatabaseUnavailableError);
    expect(db.health().state).toBe("up");
    expect(db.prepare("SELECT count(*) AS n FROM marks").get()).toEqual({ n: 0 });
  }, 30_000);

  test("a server that stops answering (frozen, as behind a cut network): one statement waits out its bound, the next fail at once, and it recovers when the server answers", async () => {
    const { pg } = probe();
    // statement_timeout 0.5 s and connect_timeout 1 s: a statement gets no answer after 0.5 + 1 + 5 s.
    const { db } = openPostgres(`postgres://parley@127.0.0.1:${pg.port}/outage_resend?sslmode=disable&connect_timeout=1`, { statementTimeoutMs: 500 });
    cleanup.push(() => db.close());
    expect(db.prepare("SELECT 1 AS n").get()).toEqual({ n: 1 });
    const frozen = serverProcesses(pg);
    for (const pid of frozen) process.kill(pid, "SIGSTOP");
    try {
      let started = Date.now();
      expect(() => db.prepare("SELECT 2 AS n").get()).toThrow(/no answer within 6500 ms/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(6_400);
      // Meanwhile the thread connects again in the background (each attempt 1 s), and nothing waits on it.
      for (let i = 0; i < 5; i++) {
        started = Date.now();
        expect(() => db.prepare("SELECT 3 AS n").get()).toThrow(DatabaseUnavailableError);
        expect(Date.now() - started).toBeLessThan(1_000);
        await Bun.sleep(300);
      }
      expect(db.health()).toMatchObject({ state: "down", reason: expect.stringMatching(/no answer|no connection to 127\.0\.0\.1:\d+ within 1 s/) });
    } finally {
      for (const pid of frozen) process.kill(pid, "SIGCONT");
    }
    await until("the thread's new connection", async () => (db.health().state === "up" ? true : undefined));
    expect(db.prepare("SELECT 4 AS n").get()).toEqual({ n: 4 });
  }, 30_000);
});
