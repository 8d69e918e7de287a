import { join } from "node:path";
import type { Subprocess } from "bun";

export const ROOT = join(import.meta.dir, "..", "..");
/** `parley` from source: the same entry `npm start` runs. */
export const FROM_SOURCE = [process.execPath, join(ROOT, "src", "main.ts")];

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Runs a one-shot command to completion. */
export async function runParley(command: string[], args: string[], options: { cwd?: string; env?: Record<string, string>; stdin?: string } = {}): Promise<RunResult> {
  const child = Bun.spawn([...command, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { exitCode, stdout, stderr };
}

export interface ServerProcess {
  child: Subprocess;
  url: string;
  stderr: () => string;
  /** SIGTERM and wait; returns the exit code. */
  stop(): Promise<number>;
}

/** Starts `serve` on an ephemeral port and waits until it says where it listens. */
export async function spawnServer(command: string[], args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<ServerProcess> {
  const child = Bun.spawn([...command, "serve", "--host", "127.0.0.1", "--port", "0", ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  let err = "";
  const reader = child.stderr.getReader();
  const decoder = new TextDecoder();
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${err}`)), 15_000);
    (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        err += decoder.decode(value);
        const match = /Listening on (\S+)/.exec(err);
        if (match) {
          clearTimeout(timer);
          resolve(`http://${match[1]}`);
        }
      }
      clearTimeout(timer);
      reject(new Error(`server exited before listening:\n${err}`));
    })().catch(reject);
  });
  // Keep draining stderr so the child never blocks on a full pipe.
  (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      err += decoder.decode(value);
    }
  })();
  return {
    child,
    url,
    stderr: () => err,
    async stop() {
      child.kill("SIGTERM");
      return child.exited;
    },
  };
}
