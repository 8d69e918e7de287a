// PostgreSQL behind the interface the code already speaks: better-sqlite3's synchronous Database.
// The connection lives in a thread of its own (postgres-thread.ts); each statement is posted there and this
// thread waits on a shared counter for the answer, as it waits on SQLite's disk today. So every
// transaction stays one synchronous stretch of code: nothing else on this thread runs between its
// statements, which is what the code was written against. Locks across processes (other nodes, the
// write-behind's connection) are the database's: row locks, constraints, advisory locks.
import type { Worker } from "node:worker_threads";
import { DatabaseUnavailableError, PostgresError } from "./errors.ts";
import { CONNECTED, REPLIES, type Reply, type Request, type ResultMode, type TlsChoice } from "./protocol.ts";
import { Lru } from "../../lib/lru.ts";
import { translate } from "./translate.ts";

const TRANSLATIONS_KEPT = 1000;

export interface SyncPostgresOptions {
  url: string;
  tls: TlsChoice;
  /** Seconds to wait for a connection (libpq's connect_timeout). */
  connectTimeoutS?: number;
  /** The server cancels a statement running longer than this. */
  statementTimeoutMs?: number;
  /** After a lost connection the thread tries to connect again at once, then this often; statements fail at once (503) until it has. */
  retryIntervalMs?: number;
}

export interface DatabaseHealth {
  state: "up" | "down";
  /** Why it is down, and since when (epoch ms). */
  reason?: string;
  since?: number;
}

type Params = unknown[];

// Required when a connection opens, not imported: SQLite mode never loads node:worker_threads (see db/postgres-client.ts).
const threads = () => require("node:worker_threads") as typeof import("node:worker_threads");

/** Values as better-sqlite3 binds them (spread, or one array of them); `undefined` travels as NULL. */
function bindable(given: Params): Params {
  const params = given.length === 1 && Array.isArray(given[0]) ? [...(given[0] as unknown[])] : given;
  for (let i = 0; i < params.length; i++) {
    if (params[i] === undefined) params[i] = null;
    else if (typeof params[i] === "object" && params[i] !== null && !(params[i] instanceof Uint8Array)) throw new TypeError("named parameters are not supported on PostgreSQL: bind by position");
  }
  return params;
}

/** bytea arrives as Uint8Array (the thread boundary drops Buffer's prototype); SQLite's blobs are Buffers. */
function buffers(rows: unknown[], arrays: boolean): unknown[] {
  const fix = (v: unknown) => (v instanceof Uint8Array && !Buffer.isBuffer(v) ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v);
  if (arrays) for (const row of rows as unknown[][]) for (let i = 0; i < row.length; i++) row[i] = fix(row[i]);
  else for (const row of rows as Record<string, unknown>[]) for (const key in row) row[key] = fix(row[key]);
  return rows;
}

const READER = /^\s*(select|with|values|show|explain|table)\b|\breturning\b/i;

/**
 * Statements that may be sent again on a new connection when theirs broke under them: one that changes
 * nothing (a WITH may hold a write), or BEGIN. Only outside a transaction, whose earlier statements died
 * with the connection.
 */
function resendable(text: string): boolean {
  if (/;\s*\S/.test(text)) return false; // several statements (exec): a later one may write
  return /^\s*(select|values|show|table|begin)\b/i.test(text) || (/^\s*with\b/i.test(text) && !/\b(insert|update|delete|merge)\b/i.test(text));
}

export class PostgresStatement {
  readonly reader: boolean;
  private readonly resend: boolean;
  private arrays = false;
  private plucked = false;
  constructor(private db: SyncPostgres, readonly source: string, readonly text: string) {
    this.reader = READER.test(text);
    this.resend = resendable(text);
  }

  raw(toggle = true): this {
    this.arrays = toggle;
    return this;
  }

  pluck(toggle = true): this {
    this.plucked = toggle;
    return this;
  }

  run(...params: Params): { changes: number; lastInsertRowid: number } {
    const reply = this.db.query(this.text, bindable(params), "count", this.resend);
    return { changes: reply.count ?? 0, lastInsertRowid: 0 };
  }

  all(...params: Params): unknown[] {
    const arrays = this.arrays || this.plucked;
    const rows = buffers(this.db.query(this.text, bindable(params), arrays ? "arrays" : "objects", this.resend).rows ?? [], arrays);
    return this.plucked ? (rows as unknown[][]).map((row) => row[0]) : rows;
  }

  get(...params: Params): unknown {
    return this.all(...params)[0];
  }

  iterate(...params: Params): IterableIterator<unknown> {
    return this.all(...params)[Symbol.iterator]();
  }
}

export class SyncPostgres {
  readonly name: string;
  open = true;
  inTransaction = false;
  serverVersion = 0;
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal = new Int32Array(new SharedArrayBuffer(8));
  private nextId = 1;
  /** Statement texts come back on every request (raw prepare() calls are not cached above): translate each once. */
  private readonly translations = new Lru<string, string>(TRANSLATIONS_KEPT);
  private depth = 0;
  private down: { reason: string; since: number } | null = null;
  /** The connection was lost inside the current transaction: the server rolled it back, so nothing more of it may run. */
  private broken = false;
  /** The connection the current transaction began on, and the one the last statement ran on. */
  private pinned = 0;
  private lastConnection = 0;
  private readonly waitMs: number;
  private readonly retryIntervalMs: number;
  private readonly receiveMessageOnPort = threads().receiveMessageOnPort;

  constructor(options: SyncPostgresOptions) {
    this.name = redactUrl(options.url);
    const { MessageChannel, Worker } = threads();
    const { port1, port2 } = new MessageChannel();
    this.port = port1 as unknown as MessagePort;
    this.worker = new Worker(new URL("./postgres-thread.ts", import.meta.url), { workerData: { port: port2, signal: this.signal }, transferList: [port2] as never });
    this.worker.unref();
    const connectTimeoutS = options.connectTimeoutS ?? 5;
    const statementTimeoutMs = options.statementTimeoutMs ?? 30_000;
    // Longer than any honest answer takes: a statement the server cancels, or a connect attempt, reports first.
    this.waitMs = statementTimeoutMs + connectTimeoutS * 1000 + 5_000;
    this.retryIntervalMs = options.retryIntervalMs ?? 1_000;
    const reply = this.send({ type: "open", id: 0, url: options.url, tls: options.tls, connectTimeoutS, statementTimeoutMs, retryIntervalMs: this.retryIntervalMs }, "open");
    this.serverVersion = reply.serverVersion ?? 0;
  }

  /** Whether statements reach the server: down from a lost connection until the thread has a new one. */
  health(): DatabaseHealth {
    while (this.down && this.receive());
    if (this.down && Atomics.load(this.signal, CONNECTED) === 1) this.down = null;
    return this.down ? { state: "down", reason: this.down.reason, since: this.down.since } : { state: "up" };
  }

  prepare(source: string): PostgresStatement {
    return new PostgresStatement(this, source, this.translations.get(source, translate));
  }

  /** Statements without parameters, several allowed (the simple query protocol). */
  exec(source: string): this {
    const text = this.translations.get(source, translate);
    this.statement(text, [], "count", true, resendable(text), source);
    return this;
  }

  query(text: string, params: Params, mode: ResultMode, resend = resendable(text)): Extract<Reply, { ok: true }> {
    return this.statement(text, params, mode, false, resend, text);
  }

  /** Outside a transaction a read may be sent again; inside one, every statement is tied to the connection it began on. */
  private statement(text: string, params: Params, mode: ResultMode, simple: boolean, resend: boolean, source: string): Extract<Reply, { ok: true }> {
    const outside = this.depth === 0;
    return this.send({ type: "query", id: 0, text, params, mode, simple, retry: outside && resend, connection: outside ? 0 : this.pinned }, source);
  }

  /** better-sqlite3's transaction(): a function that runs `fn` in BEGIN … COMMIT (a savepoint when nested). */
  transaction<F extends (...args: never[]) => unknown>(fn: F): F & { deferred: F; immediate: F; exclusive: F; default: F } {
    const run = ((...args: never[]) => {
      const nested = this.depth > 0;
      const savepoint = `parley_sp${this.depth}`;
      this.exec(nested ? `SAVEPOINT ${savepoint}` : "BEGIN");
      if (!nested) this.pinned = this.lastConnection;
      this.depth++;
      this.inTransaction = true;
      try {
        const result = fn(...args);
        if (result instanceof Promise) throw new TypeError("Transaction function cannot return a promise");
        this.exec(nested ? `RELEASE SAVEPOINT ${savepoint}` : "COMMIT");
        return result;
      } catch (error) {
        try {
          this.exec(nested ? `ROLLBACK TO SAVEPOINT ${savepoint}` : "ROLLBACK");
        } catch {} // a lost connection rolled it back already
        throw error;
      } finally {
        this.depth--;
        this.inTransaction = this.depth > 0;
        if (!this.inTransaction) this.broken = false;
      }
    }) as F;
    return Object.assign(run, { deferred: run, immediate: run, exclusive: run, default: run });
  }

  /** The few SQLite pragmas the code sends; PostgreSQL has its own means (see each). */
  pragma(source: string, options?: { simple?: boolean }): unknown {
    const pragma = source.trim().toLowerCase();
    if (pragma === "defer_foreign_keys = on") {
      this.exec("SET CONSTRAINTS ALL DEFERRED");
      return [];
    }
    // SQLite's wait for another connection's lock is PostgreSQL's lock_timeout (a row or table lock).
    const busy = /^busy_timeout\s*=\s*(\d+)$/.exec(pragma);
    if (busy) {
      this.exec(`SET lock_timeout = ${Number(busy[1])}`);
      return [];
    }
    if (pragma === "optimize") {
      this.exec("ANALYZE");
      return [];
    }
    if (pragma.startsWith("wal_checkpoint")) return options?.simple ? 0 : []; // the server checkpoints itself
    throw new Error(`PRAGMA ${source} has no PostgreSQL counterpart here`);
  }

  close(): void {
    if (!this.open) return;
    try {
      this.send({ type: "close", id: 0 }, "close");
    } catch {}
    this.open = false;
    void this.worker.terminate();
  }

  private send(request: Request, statement: string): Extract<Reply, { ok: true }> {
    if (!this.open) throw new TypeError("The database connection is not open");
    if (request.type === "query") {
      // COMMIT included: on a new connection the rest of the transaction would commit without its start.
      if (this.broken) throw new DatabaseUnavailableError(`the connection was lost during this transaction, which the server rolled back`, "", this.down?.since);
      // Not sent while the thread has no connection: it is getting one in the background.
      if (this.down && Atomics.load(this.signal, CONNECTED) !== 1) {
        while (this.receive()); // the latest reason
        throw new DatabaseUnavailableError(this.down.reason, "", this.down.since);
      }
    }
    const id = this.nextId++;
    request.id = id;
    let seen = Atomics.load(this.signal, REPLIES);
    this.port.postMessage(request);
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      let message = this.receive();
      while (message && message.id !== id) message = this.receive(); // a reply we gave up on
      if (message) return this.settle(message, statement);
      const left = deadline - Date.now();
      if (left <= 0) {
        // A connection that hangs is not to be trusted: the thread replaces it; until then nothing is sent.
        Atomics.store(this.signal, CONNECTED, 0);
        this.port.postMessage({ type: "reset", id: 0 } satisfies Request);
        return this.settle({ id, ok: false, error: { message: `no answer within ${this.waitMs} ms`, code: "ERR_POSTGRES_CONNECTION_TIMEOUT", lost: true } }, statement);
      }
      Atomics.wait(this.signal, REPLIES, seen, left);
      seen = Atomics.load(this.signal, REPLIES);
    }
  }

  /** The next message from the thread; a notice (a failed attempt to connect again) updates why it is down. */
  private receive(): Reply | undefined {
    const received = this.receiveMessageOnPort(this.port as never) as { message: Reply } | undefined;
    const message = received?.message;
    if (message && "notice" in message && this.down) this.down.reason = message.error.message;
    return message;
  }

  private settle(reply: Reply, statement: string): Extract<Reply, { ok: true }> {
    if (reply.ok) {
      this.down = null;
      this.lastConnection = reply.connection;
      return reply;
    }
    if (reply.error.lost) {
      this.down = { reason: reply.error.message, since: this.down?.since ?? Date.now() };
      if (this.depth > 0) this.broken = true;
      throw new DatabaseUnavailableError(reply.error.message, reply.error.code, this.down.since);
    }
    throw new PostgresError(reply.error, statement);
  }
}

/** The URL without its password, for logs and health. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString();
  } catch {
    return "postgres://…";
  }
}
