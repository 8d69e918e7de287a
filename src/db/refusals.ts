import { PostgresError, postgresRefusal } from "./postgres/errors.ts";

/**
 * SQLite's refusals that pass with time: another connection holds the write lock past the busy
 * timeout, the disk is full, or it failed for a moment. Any other error is a defect of the statement.
 */
export type Refusal = "busy" | "full" | "io";

export function databaseRefusal(error: unknown): Refusal | null {
  if (error instanceof PostgresError) return postgresRefusal(error) as Refusal | null; // busy, full or io for a statement's error
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !code.startsWith("SQLITE_")) return null;
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "busy";
  if (code === "SQLITE_FULL") return "full";
  if (code.startsWith("SQLITE_IOERR")) return "io";
  return null;
}

/** The level a failure is logged at: a busy database passes (WARN); a full or failing disk, or a defect, is an ERROR. */
export function failureLevel(error: unknown): "warn" | "error" {
  return databaseRefusal(error) === "busy" ? "warn" : "error";
}
