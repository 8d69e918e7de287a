/**
 * A write a unique index refused, in either database: SQLite's SQLITE_CONSTRAINT_UNIQUE (or a primary key),
 * PostgreSQL's 23505 (unique_violation). On PostgreSQL the transaction is aborted by it: answer from what
 * is known, without another statement in it.
 */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "23505";
}
