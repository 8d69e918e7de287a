// The PostgreSQL thread: it holds the connection and runs one statement at a time for the main
// thread, which waits on the shared signal (see SyncPostgres). Rows leave here in SQLite's shapes:
// int8 as numbers, booleans as 1/0, so the code above sees the same values in both modes.
//
// A lost connection (the server restarted, a backend terminated, the network cut) is replaced here, in
// the background: one connect attempt at once, then one per retry interval until one succeeds, each
// bounded by connect_timeout. Meanwhile CONNECTED is 0 and the main thread fails statements at once
// (503) instead of sending them. A statement is sent again only when that cannot write twice: a read
// (or BEGIN) outside a transaction whose connection broke within RETRY_WITHIN_MS of sending it, once, on
// the new connection. A write whose connection broke may have committed, so it is reported, not re-sent.
import { SQL } from "bun";
import { parentPort, workerData } from "node:worker_threads";
import { CONNECTED, REPLIES, TLS_FAILURE, tlsOption, type Reply, type Request, type WireError } from "./protocol.ts";

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };

/** A connection that broke this soon after the statement went out was broken before it (a restart while idle). */
const RETRY_WITHIN_MS = 1_000;

type Held = Awaited<ReturnType<InstanceType<typeof SQL>["reserve"]>>;

let pool: InstanceType<typeof SQL> | null = null;
let connection: Held | null = null;
let open: Extract<Request, { type: "open" }> | null = null;
/** The connect attempt under way, and the next one's timer after a failed one. */
let attempt: Promise<boolean> | null = null;
let retryTimer: ReturnType<typeof setTimeout> | null = null;
let lastFailure: unknown = null;
let closing = false;
/** Counts connections made: a transaction's statements must all run on the one it began on. */
let generation = 0;

function answer(reply: Reply): void {
  port.postMessage(reply);
  Atomics.add(signal, REPLIES, 1);
  Atomics.notify(signal, REPLIES);
}

/** Lets go of the connection at once (a reserved one would hold close() up). */
async function drop(): Promise<void> {
  const [held, old] = [connection, pool];
  connection = null;
  pool = null;
  Atomics.store(signal, CONNECTED, 0);
  try {
    held?.release();
  } catch {}
  await old?.close({ timeout: 0 }).catch(() => {});
}

async function connect(request: Extract<Request, { type: "open" }>): Promise<number> {
  await drop();
  // The server closing the connection while it idles (a restart) is noticed here, not at the next statement.
  let mine: InstanceType<typeof SQL> | null = null;
  const onclose = () => {
    if (mine && pool === mine && connection && !closing) void lose();
  };
  mine = new SQL({ url: request.url, max: 1, bigint: true, tls: tlsOption(request.tls) as never, connectionTimeout: request.connectTimeoutS, idleTimeout: 0, onclose });
  pool = mine;
  const reserved = await mine.reserve();
  // Times are epoch milliseconds in bigint columns; the session's own zone never shows, but keep it UTC.
  // A lock another connection holds is waited for 5 s, as SQLite's busy_timeout waits: then refused (503), not a stalled process.
  await reserved.unsafe(`SET TIME ZONE 'UTC'; SET statement_timeout = ${Math.floor(request.statementTimeoutMs)}; SET lock_timeout = 5000`);
  const [row] = (await reserved.unsafe("SHOW server_version_num")) as { server_version_num: string }[];
  if (pool !== mine) throw Object.assign(new Error("the connection was replaced while it opened"), { code: "ERR_POSTGRES_CONNECTION_CLOSED" });
  connection = reserved;
  generation++;
  Atomics.store(signal, CONNECTED, 1);
  return Number(row.server_version_num);
}

/** One connect at a time; a failed one schedules the next after the retry interval, until one succeeds. */
function reconnect(): Promise<boolean> {
  if (attempt) return attempt;
  if (retryTimer) clearTimeout(retryTimer);
  retryTimer = null;
  const current = connect(open!).then(
    () => true,
    (error) => {
      lastFailure = error;
      if (closing) return false;
      retryTimer = setTimeout(() => void reconnect(), open!.retryIntervalMs);
      answer({ id: 0, ok: false, error: { ...wireError(error), message: lostReason(error), lost: true }, notice: true });
      return false;
    },
  );
  attempt = current;
  void current.then(() => {
    if (attempt === current) attempt = null;
  });
  return current;
}

/** The connection is gone (or not to be trusted): nothing is sent on it again, and a new one is on its way. */
function lose(): Promise<boolean> {
  connection = null;
  Atomics.store(signal, CONNECTED, 0);
  return reconnect();
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
  const code = String(e.errno || e.code || "ERR_UNKNOWN"); // a TLS failure has errno 0 and its code (ERR_TLS_…)
  const driverCode = String(e.code ?? "");
  const tls = TLS_FAILURE.test(driverCode);
  return {
    message: e.message ?? String(error),
    code,
    lost: tls || LOST_CODES.has(code) || LOST_CODES.has(driverCode) || (driverCode.startsWith("ERR_POSTGRES_") && driverCode !== "ERR_POSTGRES_SERVER_ERROR" && /connect|closed|socket|tls/i.test(driverCode)),
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
    const serverVersion = await connect(request);
    return { id: request.id, ok: true, serverVersion, connection: generation };
  }
  if (request.type === "close") {
    closing = true;
    if (retryTimer) clearTimeout(retryTimer);
    await drop();
    return { id: request.id, ok: true, connection: generation };
  }
  if (request.type !== "query") throw new Error(`unexpected ${request.type}`);
  if (request.connection && (request.connection !== generation || !connection)) throw lostTransaction();
  // A connection that broke while idle is being replaced: wait for that attempt (the statement was never sent).
  if (!connection && attempt) await attempt;
  if (!connection) throw unavailable();
  const sentAt = Date.now();
  const first = generation;
  try {
    return await execute(request, connection);
  } catch (error) {
    // `on`: which connection failed, so that a loss reported late does not drop its replacement.
    if (!wireError(error).lost || !request.retry || Date.now() - sentAt > RETRY_WITHIN_MS) throw Object.assign(error as object, { on: first });
    if (!(await lose()) || !connection) throw error;
    const second = generation;
    return await execute(request, connection).catch((again) => Promise.reject(Object.assign(again as object, { on: second }))); // once: a second loss is reported
  }
}

function lostTransaction(): Error {
  return Object.assign(new Error(`the connection was lost during this transaction, which the server rolled back (${server()})`), { code: "ERR_POSTGRES_CONNECTION_CLOSED", said: true });
}

/** No connection to send on: why the last attempt failed (a connect failure of any kind is "lost"). */
function unavailable(): Error {
  const reason = lastFailure ? lostReason(lastFailure) : "the database connection is not open";
  return Object.assign(new Error(reason), { code: "ERR_POSTGRES_CONNECTION_CLOSED", said: true });
}

function server(): string {
  return open ? new URL(open.url).host : "the server";
}

/** Why the connection was lost or could not be made, naming the server (never the URL: it may hold the password). */
function lostReason(error: unknown): string {
  const e = error as { code?: string; message?: string };
  const at = server();
  if (e.code === "ERR_POSTGRES_CONNECTION_REFUSED") return `connection refused by ${at}`;
  if (e.code === "ERR_POSTGRES_CONNECTION_TIMEOUT") return `no connection to ${at} within ${open?.connectTimeoutS} s`;
  return `${e.message ?? String(error)} (${at}, ${(e as { errno?: string }).errno || e.code || "no code"})`;
}

async function execute(request: Extract<Request, { type: "query" }>, held: Held): Promise<Reply> {
  const query = request.simple ? held.unsafe(request.text) : held.unsafe(request.text, request.params as never[]);
  if (request.mode === "arrays") {
    const rows = (await query.values()) as unknown[][];
    return { id: request.id, ok: true, rows: toSqlite(Array.from(rows), true), count: rows.length, connection: generation };
  }
  const result = (await query) as unknown as unknown[] & { count: number | null };
  if (request.mode === "count") return { id: request.id, ok: true, count: Number(result.count ?? 0), connection: generation };
  return { id: request.id, ok: true, rows: toSqlite(Array.from(result), false), count: Number(result.count ?? 0), connection: generation };
}

port.on("message", (request: Request) => {
  if (request.type === "reset") return void lose();
  run(request).then(answer, (error) => {
    const wire = wireError(error);
    if (wire.lost && request.type === "query") {
      // Said here: no connection (one is on its way), or a transaction's that is gone (the new one is sound).
      if ((error as { said?: boolean }).said) return answer({ id: request.id, ok: false, error: wire });
      wire.message = lostReason(error);
      // Reconnect in the background, unless that is under way already or done (the connection held is another).
      if (connection && (error as { on?: number }).on === generation) void lose();
    }
    answer({ id: request.id, ok: false, error: wire });
  });
});
void parentPort;
