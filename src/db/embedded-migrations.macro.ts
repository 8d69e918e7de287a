// Runs at bundle time (Bun macro): the migrations folder becomes string constants in the code,
// so `bun build --compile` carries them and the binary needs no files beside it.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface EmbeddedMigration {
  tag: string;
  when: number;
  sql: string;
}

/** `dialect`: "sqlite" reads migrations/, "postgres" migrations/postgres/. */
export function readMigrationsFolder(dialect: "sqlite" | "postgres" = "sqlite"): EmbeddedMigration[] {
  const folder = join(import.meta.dir, "..", "..", "migrations", ...(dialect === "postgres" ? ["postgres"] : []));
  const journal = JSON.parse(readFileSync(join(folder, "meta", "_journal.json"), "utf8")) as {
    entries: { idx: number; tag: string; when: number }[];
  };
  return journal.entries
    .sort((a, b) => a.idx - b.idx)
    .map((entry) => ({ tag: entry.tag, when: entry.when, sql: readFileSync(join(folder, `${entry.tag}.sql`), "utf8") }));
}
