// Renders migrations/postgres/0000_baseline.sql: the PostgreSQL schema equal to what SQLite has after
// every SQLite migration up to the one named in the journal (see README "Running on PostgreSQL":
// later changes are written in both dialects, and test/db/postgres-drift.test.ts compares them).
//   bun scripts/db/postgres-baseline.ts
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../../src/db/connection.ts";
import { sqliteModel, type TableModel } from "../../src/db/introspect.ts";
import { applyMigrations } from "../../src/db/migrate.ts";
import { MIGRATIONS } from "../../src/db/migrations.ts";

const TYPES: Record<string, string> = { integer: "bigint", text: "text", blob: "bytea", real: "double precision", numeric: "numeric" };
const q = (name: string) => `"${name.replace(/"/g, '""')}"`;

function createTable(table: TableModel): string[] {
  const lines = table.columns.map((c) => {
    const serial = table.autoIncrement && table.primaryKey.length === 1 && table.primaryKey[0] === c.name;
    const dflt = serial ? ` DEFAULT nextval('${table.name}_${c.name}_seq')` : c.default !== null ? ` DEFAULT ${c.default}` : "";
    return `  ${q(c.name)} ${TYPES[c.type]}${c.notNull ? " NOT NULL" : ""}${dflt}`;
  });
  if (table.primaryKey.length) lines.push(`  PRIMARY KEY (${table.primaryKey.map(q).join(", ")})`);
  const statements: string[] = [];
  if (table.autoIncrement) statements.push(`CREATE SEQUENCE ${q(`${table.name}_${table.primaryKey[0]}_seq`)};`);
  statements.push(`CREATE TABLE ${q(table.name)} (\n${lines.join(",\n")}\n);`);
  if (table.autoIncrement) {
    // SQLite numbers an INTEGER PRIMARY KEY given as NULL, and drizzle's SQLite inserts say NULL: so does this.
    const column = table.primaryKey[0];
    const fn = q(`${table.name}_number`);
    statements.push(
      `CREATE FUNCTION ${fn}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.${q(column)} IS NULL THEN NEW.${q(column)} := nextval('${table.name}_${column}_seq'); END IF; RETURN NEW; END $$;`,
      `CREATE TRIGGER ${q(`${table.name}_number`)} BEFORE INSERT ON ${q(table.name)} FOR EACH ROW EXECUTE FUNCTION ${fn}();`,
      `ALTER SEQUENCE ${q(`${table.name}_${column}_seq`)} OWNED BY ${q(table.name)}.${q(column)};`,
    );
  }
  return statements;
}

const dir = mkdtempSync(join(tmpdir(), "parley-baseline-"));
try {
  const { sqlite } = openDatabase(join(dir, "parley.db"), dir);
  applyMigrations(sqlite, MIGRATIONS);
  const model = sqliteModel(sqlite);
  const indexSql = new Map((sqlite.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all() as { name: string; sql: string }[]).map((r) => [r.name, r.sql]));
  const out: string[] = [`-- PostgreSQL baseline: the schema of SQLite migration ${MIGRATIONS.at(-1)!.tag}, rendered by scripts/db/postgres-baseline.ts.`];
  for (const table of model) out.push(...createTable(table));
  for (const table of model) {
    for (const index of table.indexes) {
      if (index.name === "(unique)") {
        out.push(`ALTER TABLE ${q(table.name)} ADD UNIQUE (${index.columns.map(q).join(", ")});`);
        continue;
      }
      const source = indexSql.get(index.name)!;
      const where = /\bWHERE\b([\s\S]*)$/i.exec(source)?.[1]?.trim();
      const columns = /\(([\s\S]*?)\)(\s+WHERE|\s*$)/i.exec(source.slice(source.indexOf("(")))![1];
      const sqliteQuotes = (text: string) => text.replace(/`([^`]*)`/g, '"$1"');
      out.push(`CREATE ${index.unique ? "UNIQUE " : ""}INDEX ${q(index.name)} ON ${q(table.name)} (${sqliteQuotes(columns)})${where ? ` WHERE ${sqliteQuotes(where)}` : ""};`);
    }
    for (const fk of table.foreignKeys) {
      out.push(
        `ALTER TABLE ${q(table.name)} ADD FOREIGN KEY (${fk.columns.map(q).join(", ")}) REFERENCES ${q(fk.table)} (${fk.foreignColumns.map(q).join(", ")}) ON DELETE ${fk.onDelete.toUpperCase()} ON UPDATE ${fk.onUpdate.toUpperCase()};`,
      );
    }
  }
  sqlite.close();
  writeFileSync(join(import.meta.dir, "..", "..", "migrations", "postgres", "0000_baseline.sql"), out.join("\n--> statement-breakpoint\n") + "\n");
  console.log(`wrote migrations/postgres/0000_baseline.sql: ${model.length} tables`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
