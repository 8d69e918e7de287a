// A real PostgreSQL server for the tests: Debian's `postgresql` binaries (the floor Parley supports,
// 15, on Debian 12), initdb'd into a temporary directory and started on a free loopback port, once per
// test process. Each test gets a database of its own. No mock stands in for it: the suite fails, not
// skips, where the binaries are missing (.ci/run installs them).
import { execFileSync, spawnSync } from "node:child_process";
import { chownSync, copyFileSync, existsSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";

export interface PostgresServer {
  host: string;
  port: number;
  dataDir: string;
  /** A URL for `database` as the superuser `parley`. */
  url(database: string): string;
  /** psql-like: runs SQL as the superuser in `database` (default postgres). */
  sql(text: string, database?: string): string;
  stop(): void;
  start(): void;
}

const ROOT = "/usr/lib/postgresql";

export function postgresBinaries(): string {
  const versions = existsSync(ROOT) ? readdirSync(ROOT).filter((v) => existsSync(join(ROOT, v, "bin", "initdb"))).sort((a, b) => Number(b) - Number(a)) : [];
  if (!versions.length) throw new Error("PostgreSQL server binaries not found under /usr/lib/postgresql: install Debian's `postgresql` package (.ci/run does)");
  return join(ROOT, versions[0], "bin");
}

/** PostgreSQL refuses to run as root: as root, run its programs as the `postgres` user Debian's package creates. */
function asServerUser(command: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
}

function run(command: string, args: string[]): string {
  const [cmd, argv] = asServerUser(command, args);
  return execFileSync(cmd, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

/** A loopback port nothing listens on just now (synchronous, so contexts can be made synchronously). */
export function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

export interface PostgresOptions {
  /** TLS with this certificate and key (PEM files); `only`: connections without TLS are refused (hostssl). */
  tls?: { cert: string; key: string; only?: boolean };
  /** Server settings over THROWAWAY's (benchmarks ask for fsync on, as a real server runs). */
  settings?: Record<string, string>;
}

/** The tests' durability settings: off, since their databases are thrown away. */
const THROWAWAY = { fsync: "off", synchronous_commit: "off", full_page_writes: "off" };

/** As root, the server's own files must belong to the `postgres` user. */
function ownedByServer(path: string): void {
  if (userInfo().uid === 0) chownSync(path, Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" })), Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" })));
}

export function startPostgres(serverOptions: PostgresOptions = {}): PostgresServer {
  const bin = postgresBinaries();
  const dir = mkdtempSync(join(tmpdir(), "parley-pg-"));
  ownedByServer(dir);
  const dataDir = join(dir, "data");
  run(join(bin, "initdb"), ["-D", dataDir, "-U", "parley", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]);
  const port = freePort();
  const serverSettings = Object.entries({ ...THROWAWAY, ...serverOptions.settings }).map(([name, value]) => `-c ${name}=${value}`);
  let options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 ${serverSettings.join(" ")} -c max_connections=200`;
  const { tls } = serverOptions;
  if (tls) {
    // The server reads its key only when the key is private to it.
    for (const [from, name] of [[tls.cert, "server.crt"], [tls.key, "server.key"]]) {
      copyFileSync(from, join(dir, name));
      ownedByServer(join(dir, name));
    }
    execFileSync("chmod", ["600", join(dir, "server.key")]);
    options += ` -c ssl=on -c ssl_cert_file=${join(dir, "server.crt")} -c ssl_key_file=${join(dir, "server.key")}`;
    if (tls.only) {
      writeFileSync(join(dataDir, "pg_hba.conf"), "local all all trust\nhostssl all all 127.0.0.1/32 trust\n");
      ownedByServer(join(dataDir, "pg_hba.conf"));
    }
  }
  const pgCtl = (action: "start" | "stop") =>
    action === "start" ? run(join(bin, "pg_ctl"), ["-D", dataDir, "-o", options, "-l", join(dir, "log"), "-w", "start"]) : run(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "fast", "-w", "stop"]);
  pgCtl("start");
  let running = true;
  const server: PostgresServer = {
    host: "127.0.0.1",
    port,
    dataDir,
    url: (database) => `postgres://parley@127.0.0.1:${port}/${database}?sslmode=disable`,
    sql(text, database = "postgres") {
      const psql = spawnSync("psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", String(port), "-U", "parley", "-d", database, "-c", text], { encoding: "utf8" });
      if (psql.status !== 0) throw new Error(`psql: ${psql.stderr.trim()}`);
      return psql.stdout.trim();
    },
    stop() {
      if (!running) return;
      pgCtl("stop");
      running = false;
    },
    start() {
      if (running) return;
      pgCtl("start");
      running = true;
    },
  };
  // The server outlives a test process that is killed or exits without hooks (bun test runs none at
  // exit): a watcher stops it and removes its directory once this process is gone, however it ended
  // (in a session of its own, so a runner that kills the whole process group does not take it along).
  const watcher = Bun.spawn(["setsid", "sh", "-c", `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; ${asServerUser(join(bin, "pg_ctl"), ["-D", dataDir, "-m", "immediate", "-w", "stop"]).flat().join(" ")} >/dev/null 2>&1; rm -rf ${dir}`], { stdio: ["ignore", "ignore", "ignore"] });
  watcher.unref();
  return server;
}

let shared: PostgresServer | null = null;
let databases = 0;

/** The test process's server, started on first use. */
export function sharedPostgres(): PostgresServer {
  shared ??= startPostgres();
  return shared;
}

/** A fresh, empty database on the shared server; its URL. */
export function freshDatabase(): string {
  const server = sharedPostgres();
  const name = `parley_${process.pid}_${++databases}`;
  server.sql(`CREATE DATABASE ${name}`);
  return server.url(name);
}
