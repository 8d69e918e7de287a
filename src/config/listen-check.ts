import { ConfigError } from "./config.ts";

/** The one line an operator reads when the address cannot be listened on; null for errors of another kind. */
export function listenError(error: unknown, host: string, port: number): ConfigError | null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE" || /in use/i.test(String((error as Error).message))) return new ConfigError(`port ${port} is already in use`);
  if (code === "EACCES") return new ConfigError(`not allowed to listen on port ${port} (${code})`);
  if (code === "EADDRNOTAVAIL") return new ConfigError(`cannot listen on ${host}: no such local address`);
  return null;
}

/**
 * Binds the address for a moment and lets it go, so that `serve` refuses a taken port or a foreign
 * address before it creates a data dir, a key or a database. The server's own bind still checks again.
 */
export function assertCanListen(host: string, port: number, what = ""): void {
  if (port === 0) return; // any free port will do
  try {
    Bun.listen({ hostname: host, port, socket: { data() {} } }).stop(true);
  } catch (error) {
    const known = listenError(error, host, port);
    throw known ? new ConfigError(what + known.message) : error;
  }
}
