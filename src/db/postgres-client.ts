/**
 * PostgreSQL's client (db/postgres/connect.ts), loaded when a URL asks for it and never in SQLite mode:
 * it brings node:worker_threads, whose loading costs SQLite mode's requests and call frames
 * (scripts/bench/sqlite-ab.ts).
 */
export function postgresClient(): typeof import("./postgres/connect.ts") {
  return require("./postgres/connect.ts");
}
