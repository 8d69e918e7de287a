// Starts `parley serve` from source in its own process on a free port and waits until it listens.
import type { Subprocess } from "bun";
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** `root`: the checkout whose source runs (another commit's, for an A/B); `args`: more flags for serve. */
export async function spawnParley(dataDir: string, env: Record<string, string> = {}, options: { root?: string; args?: string[] } = {}): Promise<{ process: Subprocess; url: string }> {
  const main = join(options.root ?? join(import.meta.dir, "..", ".."), "src", "main.ts");
  const child = Bun.spawn([process.execPath, main, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, ...(options.args ?? [])], {
    env: { ...process.env, ...env },
    stdout: "ignore",
    stderr: "pipe",
  });
  const reader = (child.stderr as ReadableStream<Uint8Array>).getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`parley exited before listening:\n${text}`);
    text += new TextDecoder().decode(value);
    const match = /Listening on (\S+)/.exec(text);
    if (match) {
      // Keep draining stderr so the server never blocks on a full pipe.
      void (async () => {
        for (;;) if ((await reader.read()).done) return;
      })();
      return { process: child, url: `http://${match[1]}` };
    }
  }
}

/** Calls the JSON API at `base` (with a bearer token, or none); a 4xx or 5xx throws with its body. */
export function apiAt(base: string): (method: string, path: string, token: string | null, body?: unknown) => Promise<any> {
  return async (method, path, token, body) => {
    const response = await fetch(base + path, { method, headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const json = await response.json().catch(() => null);
    if (response.status >= 400) throw new Error(`${method} ${path} → ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
}

/** CPU ms (user + system, all threads) process `pid` has used so far, from /proc (Linux; USER_HZ 100). */
export function cpuMsOf(pid: number): number {
  // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
