import { postgresRefusal } from "./postgres/errors.ts";

/**
 * The database's refusals that pass with time: another connection holds the write lock past the busy
 * timeout, the disk is full, or it failed for a moment; on PostgreSQL also the server unreachable (being
 * restarted, the network cut: the statement did not run, and the connection is being made again). Any
 * other error is a defect of the statement.
 */
export type Refusal = "busy" | "full" | "io" | "unavailable";

export function databaseRefusal(error: unknown): Refusal | null {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return null;
  if (!code.startsWith("SQLITE_")) return postgresRefusal(error);
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "busy";
  if (code === "SQLITE_FULL") return "full";
  if (code.startsWith("SQLITE_IOERR")) return "io";
  return null;
}

/** The level a failure is logged at: a busy database passes (WARN); a full or failing disk, an unreachable server, or a defect, is an ERROR. */
export function failureLevel(error: unknown): "warn" | "error" {
  return databaseRefusal(error) === "busy" ? "warn" : "error";
}
