// SQLite mode loads none of PostgreSQL's client: loading it (node:worker_threads, in the server and in
// the write-behind's thread) cost SQLite mode a third of its GET /v1/auth/me throughput in
// scripts/bench/sqlite-ab.ts. The client is reached only through db/postgres-client.ts's require, made
// when a URL asks for PostgreSQL. Read from the source, like the import graph's rules.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { importGraph } from "./import-graph.ts";

const SRC = join(import.meta.dir, "../../src");
const VALUE_IMPORT = /(?:^|[\s;])import\s+(?!type\s)[^;]*?\bfrom\s*["']([^"']+)["']/gm;

/** Each file's value imports (type-only ones left out: they load nothing), as written. */
function valueImports(): [string, string][] {
  return [...importGraph(SRC).keys()].flatMap((file) => {
    const text = readFileSync(join(SRC, file), "utf8").replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*/g, "");
    return [...text.matchAll(VALUE_IMPORT)].map((match): [string, string] => [file, match[1]]);
  });
}

describe("SQLite mode's path", () => {
  const imports = valueImports();

  test("imports node:worker_threads nowhere but in PostgreSQL's own thread", () => {
    const users = imports.filter(([, spec]) => spec === "node:worker_threads" || spec === "worker_threads").map(([file]) => file);
    expect(users).toEqual(["db/postgres/postgres-thread.ts"]);
  });

  test("never imports PostgreSQL's client: it is required when a URL asks for it (db/postgres-client.ts)", () => {
    const client = new Set(["db/postgres/connect.ts", "db/postgres/sync-client.ts"]);
    const outside = imports
      .filter(([file, spec]) => spec.startsWith(".") && !file.startsWith("db/postgres/") && client.has(relative(SRC, resolve(dirname(join(SRC, file)), spec))))
      .map(([file, spec]) => `${file} -> ${spec}`);
    expect(outside).toEqual([]);
  });
});
