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
  help                               this text

Settings (flag, environment variable; flags win):
${options}
`;
}
