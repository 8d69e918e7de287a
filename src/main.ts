#!/usr/bin/env bun
// CLI entry: flags/env → open db → migrate → listen (or run a one-shot command).
import { parseArgs, type CommandFlag } from "./cli/args.ts";
import { backup, keyCreate, migrate, restore, serve, userCreate, version } from "./cli/commands.ts";
import { dbCopy } from "./cli/db-copy.ts";
import { helpText } from "./cli/help.ts";
import { TEST_FLAGS, testCommand } from "./cli/test-command.ts";
import { ConfigError } from "./config/config.ts";
import { MigrationError } from "./db/migrate.ts";
import { ApiError } from "./http/errors.ts";

const COMMAND_FLAGS: Record<string, CommandFlag[]> = {
  serve: [],
  migrate: [{ name: "init", boolean: true, help: "create the database if the data dir has none" }],
  version: [],
  help: [],
  backup: [
    { name: "out", help: "archive file to write" },
    { name: "include-key", boolean: true, help: "also store the instance key (keep the archive as secret as the key)" },
  ],
  restore: [],
  "db copy": [
    { name: "from", help: "the data dir of the SQLite instance to copy (stopped, or restored from a backup)" },
    { name: "to", help: "postgres://… of an empty PostgreSQL database" },
  ],
  "user create": [
    { name: "email", help: "the user's e-mail" },
    { name: "password-stdin", boolean: true, help: "read the password from standard input" },
    { name: "name", help: "display name" },
    { name: "operator", boolean: true, help: "make the user an owner of the operator workspace" },
  ],
  "key create": [
    { name: "workspace", help: "ws_… the key belongs to" },
    { name: "scope", help: "read-only, write or admin" },
    { name: "name", help: "a label" },
    { name: "mode", help: "live or test" },
  ],
  ...TEST_FLAGS,
};

async function main(argv: string[]): Promise<void> {
  if (argv[0] === "--version" || argv[0] === "-v") return version();
  if (argv[0] === "--help" || argv[0] === "-h") return void process.stdout.write(helpText());
  const words = argv.filter((a) => !a.startsWith("--")).slice(0, 2);
  const command = argv.length === 0 || argv[0].startsWith("--") ? "serve" : COMMAND_FLAGS[words.join(" ")] ? words.join(" ") : words[0];
  const flags = COMMAND_FLAGS[command];
  if (!flags) throw new ConfigError(`unknown command "${words.join(" ")}" (see parley help)`);
  const args = parseArgs(argv, flags);
  const extra = args.positionals.slice(command.split(" ").length);
  if (command === "restore") {
    if (extra.length !== 1) throw new ConfigError("restore takes one archive: parley restore FILE --data-dir DIR (see parley help)");
  } else if (command !== "serve" || argv[0] === "serve") {
    if (extra.length) throw new ConfigError(`unexpected argument "${extra[0]}" (see parley help)`);
  } else if (args.positionals.length) throw new ConfigError(`unexpected argument "${args.positionals[0]}" (see parley help)`);
  switch (command) {
    case "serve": return serve(args);
    case "migrate": return migrate(args);
    case "version": return version();
    case "help": return void process.stdout.write(helpText());
    case "backup": return backup(args);
    case "restore": return restore(args);
    case "db copy": return dbCopy(args);
    case "user create": return userCreate(args);
    case "key create": return keyCreate(args);
    case "test":
    case "test export":
    case "test import":
      process.exitCode = await testCommand(command, args);
      return;
  }
}

main(process.argv.slice(2)).catch((error) => {
  // Operator mistakes get one line and a non-zero exit; never a stack trace.
  const known = error instanceof ConfigError || error instanceof MigrationError || error instanceof ApiError;
  process.stderr.write(`parley: error: ${known ? error.message : (error as Error)?.message ?? String(error)}\n`);
  if (!known && process.env.PARLEY_DEBUG) process.stderr.write(`${(error as Error)?.stack}\n`);
  process.exit(error instanceof ConfigError && /^--|flag|argument|command|needs|expects/.test(error.message) ? 2 : 1);
});
