// What the main thread and the PostgreSQL thread (postgres-thread.ts) say to each other.
import { readFileSync } from "node:fs";

/** How the rows come back: objects (better-sqlite3's default), arrays (its raw mode), or a count. */
export type ResultMode = "objects" | "arrays" | "count";

export type Request =
  | { type: "open"; id: number; url: string; tls: TlsChoice; connectTimeoutS: number; statementTimeoutMs: number; retryIntervalMs: number }
  /**
   * `retry`: the statement may be sent again on a new connection if its own broke under it (see
   * postgres-thread.ts). `connection`: inside a transaction, the connection it began on (its number);
   * on any other the statement fails as lost, never runs outside its transaction. 0: any.
   */
  | { type: "query"; id: number; text: string; params: unknown[]; mode: ResultMode; simple: boolean; retry: boolean; connection: number }
  /** The main thread gave up waiting: the connection is not to be trusted; drop it and connect again (no reply). */
  | { type: "reset"; id: number }
  | { type: "close"; id: number };

/** `connection`: the number of the connection the statement ran on (each new one counts up). */
export type Reply =
  | { id: number; ok: true; rows?: unknown[]; count?: number; serverVersion?: number; connection: number }
  | { id: number; ok: false; error: WireError }
  /** Unasked (id 0): an attempt to connect again failed, and why (what health reports while down). */
  | { id: 0; ok: false; error: WireError; notice: true };

/** A failure as the thread saw it: `lost` means the connection is gone (the statement may not have run). */
export interface WireError {
  message: string;
  /** SQLSTATE from the server, or the driver's code (ERR_POSTGRES_…). */
  code: string;
  lost: boolean;
  detail?: string;
  constraint?: string;
}

/** The shared words: [0] counts replies (the main thread waits on it); [1] is 1 while the thread holds a connection. */
export const REPLIES = 0;
export const CONNECTED = 1;

/** Driver codes of a TLS handshake that failed (Node's ERR_TLS_…, OpenSSL's verify errors): the connection, not a statement. */
export const TLS_FAILURE = /^ERR_TLS_|^UNABLE_TO_|CERT|SSL|TLS|SIGNATURE|ISSUER/;

/** libpq's sslmode, plus the CA file `sslrootcert` names (verify-ca / verify-full). */
export interface TlsChoice {
  mode: "disable" | "allow" | "prefer" | "require" | "verify-ca" | "verify-full";
  rootCert?: string;
}

/** Bun's driver's `tls` for a choice, as libpq: a CA file makes require check the chain (as verify-ca); only verify-full also checks the host name. */
export function tlsOption(tls: TlsChoice): unknown {
  if (tls.mode === "disable") return false;
  if (!tls.rootCert || tls.mode === "allow" || tls.mode === "prefer") return tls.mode;
  const ca = readFileSync(tls.rootCert, "utf8");
  return tls.mode === "verify-full" ? { ca, rejectUnauthorized: true } : { ca, checkServerIdentity: () => undefined, rejectUnauthorized: true };
}
