// What the main thread and the PostgreSQL thread (postgres-thread.ts) say to each other.

/** How the rows come back: objects (better-sqlite3's default), arrays (its raw mode), or a count. */
export type ResultMode = "objects" | "arrays" | "count";

export type Request =
  | { type: "open"; id: number; url: string; tls: TlsChoice; connectTimeoutS: number; statementTimeoutMs: number }
  | { type: "query"; id: number; text: string; params: unknown[]; mode: ResultMode; simple: boolean }
  | { type: "close"; id: number };

export type Reply =
  | { id: number; ok: true; rows?: unknown[]; count?: number; serverVersion?: number }
  | { id: number; ok: false; error: WireError };

/** A failure as the thread saw it: `lost` means the connection is gone (the statement may not have run). */
export interface WireError {
  message: string;
  /** SQLSTATE from the server, or the driver's code (ERR_POSTGRES_…). */
  code: string;
  lost: boolean;
  detail?: string;
  constraint?: string;
}

/** libpq's sslmode, plus the CA file `sslrootcert` names (verify-ca / verify-full). */
export interface TlsChoice {
  mode: "disable" | "allow" | "prefer" | "require" | "verify-ca" | "verify-full";
  rootCert?: string;
}
