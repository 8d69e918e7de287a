// One line per event on stderr: time, level, message, then key=value fields.
export type LogLevel = "debug" | "info" | "warn" | "error";
const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface Logger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const threshold = RANK[level];
  const log = (at: LogLevel) => (message: string, fields?: Record<string, unknown>) => {
    if (RANK[at] < threshold) return;
    let line = `${new Date().toISOString()} ${at.toUpperCase().padEnd(5)} ${message}`;
    for (const [key, value] of Object.entries(fields ?? {})) {
      if (value === undefined) continue;
      const text = value instanceof Error ? value.message : typeof value === "string" ? value : JSON.stringify(value);
      line += ` ${key}=${/\s/.test(text) ? JSON.stringify(text) : text}`;
    }
    write(line + "\n");
  };
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
