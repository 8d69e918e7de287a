import type { WireError } from "./protocol.ts";

/** The server is unreachable (stopped, restarting, network cut): the statement did not commit. */
export class DatabaseUnavailableError extends Error {
  readonly code = "PARLEY_DATABASE_UNAVAILABLE";
  /** The driver's code for what broke (ERR_POSTGRES_CONNECTION_REFUSED, …); since: when it was lost (epoch ms). */
  readonly reason: string;
  constructor(reason: string, readonly driverCode = "", readonly since = Date.now()) {
    const said = reason.replace(/(\/\/[^:/@\s]*):[^@\s]*@/g, "$1:***@"); // it goes to health and logs
    super(`the database is unavailable: ${said}`);
    this.reason = said;
  }
}

/** An error the server returned for a statement; `code` is its SQLSTATE. */
export class PostgresError extends Error {
  readonly code: string;
  readonly detail?: string;
  readonly constraint?: string;
  constructor(wire: WireError, readonly statement: string) {
    super(wire.message);
    this.code = wire.code;
    this.detail = wire.detail;
    this.constraint = wire.constraint;
  }
}

// SQLSTATEs that pass with time, in the words of db/refusals.ts.
const BUSY = new Set(["40001", "40P01", "55P03", "57014"]); // serialization, deadlock, lock wait, statement timeout
const FULL = new Set(["53100", "53200", "53300"]); // disk full, out of memory, too many connections
const IO = new Set(["58030", "XX001", "XX002"]);

export function postgresRefusal(error: unknown): "busy" | "full" | "io" | "unavailable" | null {
  if (error instanceof DatabaseUnavailableError) return "unavailable";
  if (!(error instanceof PostgresError)) return null;
  if (BUSY.has(error.code)) return "busy";
  if (FULL.has(error.code)) return "full";
  if (IO.has(error.code)) return "io";
  return null;
}
