// CI check: the migration journal only ever grows. Entries are never removed, reordered or
// rewritten, timestamps strictly increase, and every journal entry has its SQL file.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface JournalEntry {
  idx: number;
  tag: string;
  when: number;
}

export interface MigrationSet {
  entries: JournalEntry[];
  /** tag → SQL text */
  sql: Record<string, string>;
}

/** Problems with `current`, alone and compared with an earlier version of the same folder. */
export function journalProblems(current: MigrationSet, previous?: MigrationSet): string[] {
  const problems: string[] = [];
  current.entries.forEach((entry, i) => {
    if (entry.idx !== i) problems.push(`entry ${i} (${entry.tag}) has idx ${entry.idx}`);
    if (i > 0 && entry.when <= current.entries[i - 1].when) problems.push(`${entry.tag} is dated before or with ${current.entries[i - 1].tag}: the journal goes backwards`);
    if (current.sql[entry.tag] === undefined) problems.push(`${entry.tag}.sql is missing`);
  });
  for (const tag of Object.keys(current.sql)) {
    if (!current.entries.some((e) => e.tag === tag)) problems.push(`${tag}.sql is not in the journal`);
  }
  if (previous) {
    previous.entries.forEach((old, i) => {
      const now = current.entries[i];
      if (!now) problems.push(`${old.tag} was removed from the journal`);
      else if (now.tag !== old.tag || now.when !== old.when) problems.push(`journal entry ${i} changed from ${old.tag} to ${now.tag}`);
      else if (previous.sql[old.tag] !== undefined && current.sql[old.tag] !== previous.sql[old.tag]) {
        problems.push(`${old.tag}.sql was edited after it was committed; add a new migration instead`);
      }
    });
  }
  return problems;
}

export function readMigrationSet(folder: string): MigrationSet {
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as { entries: JournalEntry[] };
  const sql: Record<string, string> = {};
  for (const file of readdirSync(folder)) if (file.endsWith(".sql")) sql[file.slice(0, -4)] = readFileSync(join(folder, file), "utf8");
  return { entries: journal.entries, sql };
}

/** The migrations folder as of a git revision, or undefined without history (shallow clone, first commit). */
export function readMigrationSetAt(root: string, revision: string): MigrationSet | undefined {
  const git = (...args: string[]) => execFileSync("git", ["-C", root, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  try {
    const journal = JSON.parse(git("show", `${revision}:migrations/meta/_journal.json`)) as { entries: JournalEntry[] };
    const sql: Record<string, string> = {};
    for (const entry of journal.entries) sql[entry.tag] = git("show", `${revision}:migrations/${entry.tag}.sql`);
    return { entries: journal.entries, sql };
  } catch {
    return undefined;
  }
}

if (import.meta.main) {
  const root = join(import.meta.dir, "..");
  const current = readMigrationSet(join(root, "migrations"));
  // Compare with the last commit (what landed before this change) and with HEAD (uncommitted edits).
  const baselines = ["HEAD~1", "HEAD"].map((rev) => [rev, readMigrationSetAt(root, rev)] as const);
  const problems = journalProblems(current);
  for (const [rev, previous] of baselines) if (previous) problems.push(...journalProblems(current, previous).map((p) => `${p} (compared with ${rev})`));
  if (!existsSync(join(root, "migrations", "meta", `${String(current.entries.length - 1).padStart(4, "0")}_snapshot.json`))) {
    problems.push("the newest drizzle snapshot is missing: generate migrations with `npm run db:generate`");
  }
  if (problems.length) {
    for (const problem of [...new Set(problems)]) console.error(`migrations: ${problem}`);
    process.exit(1);
  }
  console.log(`migrations: ${current.entries.length} in order${baselines.some(([, p]) => p) ? ", none rewritten" : " (no git history to compare)"}`);
}
