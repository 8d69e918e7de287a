import { OPTIONS } from "../config/options.ts";

export function helpText(): string {
  const options = OPTIONS.map((o) => `  --${o.flag.padEnd(30)} ${o.env.padEnd(36)} ${o.help}`).join("\n");
  return `Usage: parley <command> [flags]

Commands:
  serve                              run the API server (the default)
  migrate [--init]                   apply pending database migrations and exit (--init: create the database in a new data dir)
  version                            print the version
  backup --out FILE [--include-key]  write one archive of the live instance: database, recordings, a manifest
                                     (and the instance key with --include-key); safe beside a running server
  restore FILE --data-dir DIR        unpack a backup into a new data dir, checking every checksum and row count
  db copy --from DIR --to postgres://…
                                     copy a stopped SQLite instance's data into an empty PostgreSQL database (all or
                                     nothing, ids kept, row counts checked); then serve with --database-url
  user create --email E --password-stdin [--name N] [--operator]
                                     create a user with their own workspace (--operator: in the operator workspace)
  key create --workspace W --scope S [--name N] [--mode live|test]
                                     create an API key (scope: read-only, write, admin); prints the secret once
  test --server URL --key KEY --agent A [--suite FILE] [--junit FILE] [--version N] [--concurrency N] [--tests ID,…]
                                     run the agent's test suite on a server (its stored cases, or a suite file's), show
                                     each case as it finishes and why a case failed; --junit writes JUnit XML for CI.
                                     Exit 0: all passed, 1: a case failed, 2: the run could not start (PARLEY_SERVER,
                                     PARLEY_API_KEY stand in for --server, --key)
  test export --server URL --key KEY --agent A [--out FILE]
                                     write the agent's stored cases as a suite file (JSON)
  test import --server URL --key KEY --agent A --suite FILE
                                     create or update the agent's cases from a suite file (matched by name)
  help                               this text

Settings (flag, environment variable; flags win):
${options}
`;
}
