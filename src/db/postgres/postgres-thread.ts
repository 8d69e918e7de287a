// The PostgreSQL thread: it holds the connection and runs one statement at a time for the main
// thread, which waits on the shared signal (see SyncPostgres). Rows leave here in SQLite's shapes:
// int8 as numbers, booleans as 1/0, so the code above sees the same values in both modes.
import { SQL } from "bun";
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import type { Reply, Request, TlsChoice, WireError } from "./protocol.ts";

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };

let pool: InstanceType<typeof SQL> | null = null;
let connection: Awaited<ReturnType<InstanceType<typeof SQL>["reserve"]>> | null = null;
let open: Extract<Request, { type: "open" }> | null = null;

function answer(reply: Reply): void {
  port.postMessage(reply);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}

function tlsOption(tls: TlsChoice): unknown {
  if (tls.mode === "disable") return false;
  if (!tls.rootCert) return tls.mode;
  const ca = readFileSync(tls.rootCert, "utf8");
  return tls.mode === "verify-ca" ? { ca, checkServerIdentity: () => undefined, rejectUnauthorized: true } : { ca, rejectUnauthorized: true };
}

/** Lets go of the connection at once (a reserved one would hold close() up). */
async function drop(): Promise<void> {
  const [held, old] = [connection, pool];
  connection = null;
  pool = null;
  try {
    held?.release();
  } catch {}
  await old?.close({ timeout: 0 }).catch(() => {});
}

async function connect(request: Extract<Request, { type: "open" }>): Promise<number> {
  await drop();
  pool = new SQL({ url: request.url, max: 1, bigint: true, tls: tlsOption(request.tls) as never, connectionTimeout: request.connectTimeoutS, idleTimeout: 0 });
  connection = await pool.reserve();
  // Times are epoch milliseconds in bigint columns; the session's own zone never shows, but keep it UTC.
  // A lock another connection holds is waited for 5 s, as SQLite's busy_timeout waits: then refused (503), not a stalled process.
  await connection.unsafe(`SET TIME ZONE 'UTC'; SET statement_timeout = ${Math.floor(request.statementTimeoutMs)}; SET lock_timeout = 5000`);
  const [row] = (await connection.unsafe("SHOW server_version_num")) as { server_version_num: string }[];
  return Number(row.server_version_num);
}

const LOST_CODES = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_FAILED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_IDLE_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
  "57P01", // admin_shutdown: the server is going down
  "57P02",
  "57P03", // cannot_connect_now: starting up or shutting down
  "08000",
  "08003",
  "08006",
]);

function wireError(error: unknown): WireError {
  const e = error as { message?: string; code?: string; errno?: string; detail?: string; constraint?: string };
  const code = String(e.errno ?? e.code ?? "ERR_UNKNOWN");
  const driverCode = String(e.code ?? "");
  return {
    message: e.message ?? String(error),
    code,
    lost: LOST_CODES.has(code) || LOST_CODES.has(driverCode) || (driverCode.startsWith("ERR_POSTGRES_") && driverCode !== "ERR_POSTGRES_SERVER_ERROR" && /connect|closed|socket|tls/i.test(driverCode)),
    detail: e.detail,
    constraint: e.constraint,
  };
}

/** SQLite's shapes: numbers for int8 (exact below 2^53, which money and times stay under), 1/0 for booleans. */
function sqliteValue(value: unknown): unknown {
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

function toSqlite(rows: unknown[], arrays: boolean): unknown[] {
  if (arrays) for (const row of rows as unknown[][]) for (let i = 0; i < row.length; i++) row[i] = sqliteValue(row[i]);
  else for (const row of rows as Record<string, unknown>[]) for (const key in row) row[key] = sqliteValue(row[key]);
  return rows;
}

async function run(request: Request): Promise<Reply> {
  if (request.type === "open") {
    open = request;
    return { id: request.id, ok: true, serverVersion: await connect(request) };
  }
  if (request.type === "close") {
    await drop();
    return { id: request.id, ok: true };
  }
  // A connection that broke earlier is replaced before the next statement: the statement was never sent.
  if (!connection && open) await connect(open);
  if (!connection) throw Object.assign(new Error("the database connection is not open"), { code: "ERR_POSTGRES_CONNECTION_CLOSED" });
  const query = request.simple ? connection.unsafe(request.text) : connection.unsafe(request.text, request.params as never[]);
  if (request.mode === "arrays") {
    const rows = (await query.values()) as unknown[][];
    return { id: request.id, ok: true, rows: toSqlite(Array.from(rows), true), count: rows.length };
  }
  const result = (await query) as unknown as unknown[] & { count: number | null };
  if (request.mode === "count") return { id: request.id, ok: true, count: Number(result.count ?? 0) };
  return { id: request.id, ok: true, rows: toSqlite(Array.from(result), false), count: Number(result.count ?? 0) };
}

port.on("message", (request: Request) => {
  run(request).then(answer, (error) => {
    const wire = wireError(error);
    if (wire.lost) void drop(); // reconnect before the next statement
    answer({ id: request.id, ok: false, error: wire });
  });
});
void parentPort;
