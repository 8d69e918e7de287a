// PostgreSQL behind the interface the code already speaks: better-sqlite3's synchronous Database.
// The connection lives in a thread of its own (postgres-thread.ts); each statement is posted there and this
// thread waits on a shared counter for the answer, as it waits on SQLite's disk today. So every
// transaction stays one synchronous stretch of code: nothing else on this thread runs between its
// statements, which is what the code was written against. Locks across processes (other nodes, the
// write-behind's connection) are the database's: row locks, constraints, advisory locks.
import type { Worker } from "node:worker_threads";
import { DatabaseUnavailableError, PostgresError } from "./errors.ts";
import type { Reply, Request, ResultMode, TlsChoice } from "./protocol.ts";
import { translate } from "./translate.ts";

export interface SyncPostgresOptions {
  url: string;
  tls: TlsChoice;
  /** Seconds to wait for a connection (libpq's connect_timeout). */
  connectTimeoutS?: number;
  /** The server cancels a statement running longer than this. */
  statementTimeoutMs?: number;
  /** After a lost connection, statements fail at once (503) for this long before one tries again. */
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

export class PostgresStatement {
  readonly reader: boolean;
  private arrays = false;
  private plucked = false;
  constructor(private db: SyncPostgres, readonly source: string, readonly text: string) {
    this.reader = READER.test(text);
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
    const reply = this.db.query(this.text, bindable(params), "count");
    return { changes: reply.count ?? 0, lastInsertRowid: 0 };
  }

  all(...params: Params): unknown[] {
    const arrays = this.arrays || this.plucked;
    const rows = buffers(this.db.query(this.text, bindable(params), arrays ? "arrays" : "objects").rows ?? [], arrays);
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
  private readonly signal = new Int32Array(new SharedArrayBuffer(4));
  private nextId = 1;
  private depth = 0;
  private down: { reason: string; since: number; retryAt: number } | null = null;
  private readonly waitMs: number;
  private readonly retryIntervalMs: number;
  private readonly receive = threads().receiveMessageOnPort;

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
    const reply = this.send({ type: "open", id: 0, url: options.url, tls: options.tls, connectTimeoutS, statementTimeoutMs }, "open");
    this.serverVersion = reply.serverVersion ?? 0;
  }

  /** Whether statements reach the server; a lost connection shows here until one succeeds again. */
  health(): DatabaseHealth {
    if (!this.down) return { state: "up" };
    // Health asks the server itself once the retry interval has passed, so it recovers without traffic.
    if (Date.now() >= this.down.retryAt && !this.inTransaction) {
      try {
        this.query("SELECT 1", [], "count");
      } catch {}
    }
    return this.down ? { state: "down", reason: this.down.reason, since: this.down.since } : { state: "up" };
  }

  prepare(source: string): PostgresStatement {
    return new PostgresStatement(this, source, translate(source));
  }

  /** Statements without parameters, several allowed (the simple query protocol). */
  exec(source: string): this {
    this.send({ type: "query", id: 0, text: translate(source), params: [], mode: "count", simple: true }, source);
    return this;
  }

  query(text: string, params: Params, mode: ResultMode): Extract<Reply, { ok: true }> {
    return this.send({ type: "query", id: 0, text, params, mode, simple: false }, text);
  }

  /** better-sqlite3's transaction(): a function that runs `fn` in BEGIN … COMMIT (a savepoint when nested). */
  transaction<F extends (...args: never[]) => unknown>(fn: F): F & { deferred: F; immediate: F; exclusive: F; default: F } {
    const run = ((...args: never[]) => {
      const nested = this.depth > 0;
      const savepoint = `parley_sp${this.depth}`;
      this.exec(nested ? `SAVEPOINT ${savepoint}` : "BEGIN");
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
    const down = this.down;
    if (down && request.type === "query" && Date.now() < down.retryAt) throw new DatabaseUnavailableError(down.reason);
    const id = this.nextId++;
    request.id = id;
    let seen = Atomics.load(this.signal, 0);
    this.port.postMessage(request);
    const deadline = Date.now() + this.waitMs;
    for (;;) {
      let message = this.receive(this.port as never) as { message: Reply } | undefined;
      while (message && message.message.id !== id) message = this.receive(this.port as never) as { message: Reply } | undefined; // a reply we gave up on
      if (message) return this.settle(message.message, statement);
      const left = deadline - Date.now();
      if (left <= 0) return this.settle({ id, ok: false, error: { message: `no answer within ${this.waitMs} ms`, code: "ERR_POSTGRES_CONNECTION_TIMEOUT", lost: true } }, statement);
      Atomics.wait(this.signal, 0, seen, left);
      seen = Atomics.load(this.signal, 0);
    }
  }

  private settle(reply: Reply, statement: string): Extract<Reply, { ok: true }> {
    if (reply.ok) {
      this.down = null;
      return reply;
    }
    if (reply.error.lost) {
      const now = Date.now();
      this.down = { reason: reply.error.message, since: this.down?.since ?? now, retryAt: now + this.retryIntervalMs };
      throw new DatabaseUnavailableError(reply.error.message, reply.error.code);
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
