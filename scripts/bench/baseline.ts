// Runs a benchmark script of another commit beside this checkout's, alternating, so a figure measured
// on a noisy shared box is compared with the code it improves on in the same minutes, not with a number
// from another day. The other commit is checked out in a temporary git worktree that uses this
// checkout's node_modules.
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..", "..");

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

export async function againstBaseline(run: BaselineRun): Promise<BaselineResult> {
  const dir = mkdtempSync(join(tmpdir(), "parley-baseline-"));
  const git = (...args: string[]) => {
    const result = Bun.spawnSync(["git", ...args], { cwd: ROOT, stderr: "pipe" });
    if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString().trim()}`);
  };
  git("worktree", "add", "--detach", "--force", dir, run.revision);
  try {
    symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
    const result: BaselineResult = { baseline: [], current: [] };
    for (let round = 1; round <= run.rounds; round++) {
      for (const [side, root] of [["baseline", dir], ["current", ROOT]] as const) {
        const proc = Bun.spawn([process.execPath, join(root, run.script), ...run.args], { cwd: root, stdout: "pipe", stderr: "inherit" });
        const output = await new Response(proc.stdout).text();
        if ((await proc.exited) !== 0) throw new Error(`${side} run of ${run.script} failed:\n${output}`);
        const value = run.figure(output);
        result[side].push(value);
        console.log(`round ${round}/${run.rounds} ${side.padEnd(8)} ${value}`);
      }
    }
    return result;
  } finally {
    git("worktree", "remove", "--force", dir);
    rmSync(dir, { recursive: true, force: true });
  }
}
