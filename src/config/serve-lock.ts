import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./config.ts";

/** The process identity written in the lock: pid plus its start time, so a reused pid is not mistaken for us. */
function identity(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return `${pid} ${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}`;
  } catch {
    return null; // no such process
  }
}

/**
 * One `serve` per data dir: a second one would take over the database and jobs of a live instance.
 * The lock file names the holder; a holder that died (kill -9, power loss) leaves a stale lock,
 * which the next start takes over. Other commands (backup, user create…) do not take it; db copy does,
 * with its own `refusal`, since it must read data at rest.
 */
export function lockDataDir(root: string, refusal = (pid: number) => `another Parley (pid ${pid}) is already serving ${root}; stop it first, or use another --data-dir`): { release(): void } {
  try {
    mkdirSync(root, { recursive: true });
  } catch (error) {
    throw new ConfigError(`data dir ${root} is not writable (${(error as NodeJS.ErrnoException).code ?? "error"})`);
  }
  const path = join(root, "serve.lock");
  const mine = identity(process.pid) ?? String(process.pid);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, mine);
      closeSync(fd);
      return {
        release() {
          try {
            if (readFileSync(path, "utf8") === mine) unlinkSync(path);
          } catch {
            // already gone
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw new ConfigError(`cannot lock data dir ${root}: ${(error as Error).message}`);
    }
    const holder = readFileSync(path, "utf8").trim();
    const pid = Number(holder.split(" ")[0]);
    const current = pid > 0 ? identity(pid) : null;
    const alive = current !== null && (!holder.includes(" ") || current === holder);
    if (alive) throw new ConfigError(refusal(pid));
    unlinkSync(path); // stale: its holder is gone
  }
  throw new ConfigError(`cannot lock data dir ${root}: another process keeps taking the lock`);
}
