// --database-url as libpq users write it: postgres[ql]://user:password@host:port/database?sslmode=…
import { existsSync } from "node:fs";
import { ConfigError } from "../../config/errors.ts";
import type { TlsChoice } from "./protocol.ts";

export interface DatabaseUrl {
  /** What the driver is given: the URL without the parameters read here. */
  url: string;
  host: string;
  port: number;
  database: string;
  user: string;
  tls: TlsChoice;
  connectTimeoutS: number;
}

const SSL_MODES = ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] as const;
const PASSED_ON = new Set(["application_name"]);

export function parseDatabaseUrl(raw: string): DatabaseUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`--database-url is not a URL: expected postgres://user:password@host:5432/database`);
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new ConfigError(`--database-url must start with postgres:// (PostgreSQL is the only server database), got "${url.protocol}//"`);
  }
  if (!url.hostname) throw new ConfigError("--database-url names no host: postgres://user:password@host:5432/database");
  const database = decodeURIComponent(url.pathname.replace(/^\//, ""));
  if (!database || database.includes("/")) throw new ConfigError("--database-url names no database: add it as the path (postgres://…@host:5432/parley)");
  const port = url.port ? Number(url.port) : 5432;
  const user = decodeURIComponent(url.username);
  if (!user) throw new ConfigError("--database-url names no role: postgres://role:password@host:5432/database");
  const mode = url.searchParams.get("sslmode") ?? "prefer"; // libpq's default
  if (!(SSL_MODES as readonly string[]).includes(mode)) throw new ConfigError(`--database-url: sslmode must be one of ${SSL_MODES.join(", ")}, got "${mode}"`);
  const rootCert = url.searchParams.get("sslrootcert") ?? undefined;
  if (rootCert && !existsSync(rootCert)) throw new ConfigError(`--database-url: sslrootcert ${rootCert} does not exist`);
  if ((mode === "verify-ca" || mode === "verify-full") && !rootCert) {
    throw new ConfigError(`--database-url: sslmode=${mode} needs sslrootcert=<CA file> to verify the server against`);
  }
  const timeout = url.searchParams.get("connect_timeout");
  const connectTimeoutS = timeout === null ? 5 : Number(timeout);
  if (!Number.isInteger(connectTimeoutS) || connectTimeoutS < 1) throw new ConfigError(`--database-url: connect_timeout must be whole seconds (1 or more), got "${timeout}"`);
  for (const key of url.searchParams.keys()) {
    if (!["sslmode", "sslrootcert", "connect_timeout"].includes(key) && !PASSED_ON.has(key)) {
      throw new ConfigError(`--database-url: parameter "${key}" is not supported (sslmode, sslrootcert, connect_timeout and application_name are)`);
    }
  }
  const driver = new URL(url.toString());
  for (const key of ["sslmode", "sslrootcert", "connect_timeout"]) driver.searchParams.delete(key);
  return { url: driver.toString(), host: url.hostname, port, database, user, tls: { mode: mode as TlsChoice["mode"], rootCert }, connectTimeoutS };
}
