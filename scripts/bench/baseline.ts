// Runs a benchmark script of another commit beside this checkout's, alternating, so a figure measured
// on a noisy shared box is compared with the code it improves on in the same minutes, not with a number
// from another day. The other commit is checked out in a temporary git worktree that uses this
// checkout's node_modules.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const ROOT = join(import.meta.dir, "..", "..");

export interface BaselineRun {
  /** A commit (or anything git rev-parse takes). */
  revision: string;
  /** The script, relative to the repository root, in both checkouts. */
  script: string;
  args: string[];
  rounds: number;
  /** Reads the figure out of the script's output. */
  figure: (output: string) => number;
}

export interface BaselineResult {
  baseline: number[];
  current: number[];
}

/** Checks `revision` out in a temporary worktree (with this checkout's node_modules) for the length of `use`. */
export async function withCheckout<T>(revision: string, use: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "parley-baseline-"));
  const git = (...args: string[]) => {
    const result = Bun.spawnSync(["git", ...args], { cwd: ROOT, stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString().trim()}`);
  };
  git("worktree", "add", "--detach", "--force", dir, revision);
  try {
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    return await use(dir);
  } finally {
    git("worktree", "remove", "--force", dir);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `script` (relative to a checkout's root) there with `args` and returns its standard output. */
export async function runScript(root: string, script: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const proc = Bun.spawn([process.execPath, join(root, script), ...args], { cwd: root, stdout: "pipe", stderr: "inherit", env: { ...process.env, ...env } });
  const output = await new Response(proc.stdout).text();
  if ((await proc.exited) !== 0) throw new Error(`${script} in ${root} failed:\n${output.slice(-2000)}`);
  return output;
}

export async function againstBaseline(run: BaselineRun): Promise<BaselineResult> {
  return withCheckout(run.revision, async (dir) => {
    const result: BaselineResult = { baseline: [], current: [] };
    for (let round = 1; round <= run.rounds; round++) {
      for (const [side, root] of [["baseline", dir], ["current", ROOT]] as const) {
        const value = run.figure(await runScript(root, run.script, run.args));
        result[side].push(value);
        console.log(`round ${round}/${run.rounds} ${side.padEnd(8)} ${value}`);
      }
    }
    return result;
  });
}
