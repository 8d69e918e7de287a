// Opening PostgreSQL at start: every way it can fail becomes one line naming what is wrong, before
// anything listens (ConfigError), and the server is checked for version and rights.
import { ConfigError } from "../../config/errors.ts";
import { DatabaseUnavailableError, PostgresError } from "./errors.ts";
import { SyncPostgres } from "./sync-client.ts";

export { redactUrl } from "./sync-client.ts";
import { parseDatabaseUrl, type DatabaseUrl } from "./url.ts";
import { TLS_FAILURE } from "./protocol.ts";

export const MIN_SERVER_VERSION = 150000;

function where(target: DatabaseUrl): string {
  return `${target.host}:${target.port}`;
}

/** Why a connection attempt failed, in the operator's terms. */
function reason(error: unknown, target: DatabaseUrl): string {
  const code = (error as { code?: string }).code ?? "";
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof DatabaseUnavailableError) {
    if (error.driverCode === "ERR_POSTGRES_CONNECTION_REFUSED") return `nothing accepts connections at ${where(target)} (connection refused)`;
    if (/TLS|SSL/i.test(message) || TLS_FAILURE.test(error.driverCode)) return `TLS to ${where(target)} failed (sslmode=${target.tls.mode}): ${error.reason}${target.tls.rootCert ? ` (checked against sslrootcert ${target.tls.rootCert})` : ""}`;
    return `no connection to ${where(target)} within ${target.connectTimeoutS} s (${message.replace(/^the database is unavailable: /, "")})`;
  }
  if (error instanceof PostgresError) {
    if (code === "28000" && /no encryption/.test(message)) return `the server at ${where(target)} accepts only TLS connections, and sslmode=${target.tls.mode} does not use TLS (use sslmode=require or verify-full): ${message}`;
    if (code === "28P01" || code === "28000") return `the server at ${where(target)} refused role "${target.user}": ${message}`;
    if (code === "3D000") return `database "${target.database}" does not exist on ${where(target)} (create it, owned by role "${target.user}")`;
    if (code === "42501") return `role "${target.user}" lacks a right it needs: ${message}`;
    return `${message} (SQLSTATE ${code})`;
  }
  if (/TLS|SSL/i.test(code + message)) return `TLS to ${where(target)} failed (sslmode=${target.tls.mode}): ${message}`;
  return message;
}

export interface OpenedPostgres {
  db: SyncPostgres;
  target: DatabaseUrl;
}

export function openPostgres(rawUrl: string, options: { statementTimeoutMs?: number; retryIntervalMs?: number } = {}): OpenedPostgres {
  const target = parseDatabaseUrl(rawUrl);
  let db: SyncPostgres;
  try {
    db = new SyncPostgres({ url: target.url, tls: target.tls, connectTimeoutS: target.connectTimeoutS, ...options });
  } catch (error) {
    throw new ConfigError(`--database-url: ${reason(error, target)}`);
  }
  try {
    if (db.serverVersion < MIN_SERVER_VERSION) {
      const major = Math.floor(db.serverVersion / 10000);
      throw new ConfigError(`--database-url: PostgreSQL ${major} at ${where(target)} is too old: Parley needs 15 or newer`);
    }
    checkRights(db, target);
  } catch (error) {
    db.close();
    throw error instanceof ConfigError ? error : new ConfigError(`--database-url: ${reason(error, target)}`);
  }
  return { db, target };
}

/** The role must create tables in `public` (first start, migrations) and read and write every table there. */
function checkRights(db: SyncPostgres, target: DatabaseUrl): void {
  const { create } = db.prepare("SELECT has_schema_privilege(current_user, 'public', 'CREATE') AS create").get() as { create: number };
  // has_table_privilege with a list is true if ANY of them is held: each right is asked on its own.
  const missing = db
    .prepare(
      `SELECT tablename AS name FROM pg_tables t WHERE schemaname = 'public' AND NOT (${["SELECT", "INSERT", "UPDATE", "DELETE"].map((right) => `has_table_privilege(current_user, format('%I.%I', schemaname, tablename), '${right}')`).join(" AND ")})
       UNION ALL SELECT sequencename FROM pg_sequences WHERE schemaname = 'public' AND NOT has_sequence_privilege(current_user, format('%I.%I', schemaname, sequencename), 'USAGE')
       ORDER BY 1`,
    )
    .all() as { name: string }[];
  if (missing.length) {
    throw new ConfigError(`--database-url: role "${target.user}" cannot read and write ${missing.length > 1 ? "tables" : "table"} ${missing.slice(0, 3).map((m) => m.name).join(", ")}${missing.length > 3 ? ", …" : ""} (GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "${target.user}"; GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "${target.user}")`);
  }
  if (!create) {
    const { migrated } = db.prepare("SELECT to_regclass('public.__drizzle_migrations') IS NOT NULL AS migrated").get() as { migrated: number };
    if (!migrated) throw new ConfigError(`--database-url: role "${target.user}" may not create tables in schema public of "${target.database}" (GRANT CREATE ON SCHEMA public TO "${target.user}", or make it the database's owner)`);
  }
}
