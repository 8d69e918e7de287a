import { ConfigError, type RawSettings } from "../config/config.ts";
import { OPTIONS } from "../config/options.ts";

export interface CommandFlag {
  name: string;
  /** Boolean flags take no value. */
  boolean?: boolean;
  help: string;
}

export interface ParsedArgs {
  positionals: string[];
  /** Server settings given as flags (they beat env). */
  settings: RawSettings;
  /** Command-specific flags. */
  flags: Record<string, string | boolean>;
}

/** `--name value`, `--name=value`, and bare `--flag` for booleans; anything unknown is an error. */
export function parseArgs(argv: string[], commandFlags: CommandFlag[]): ParsedArgs {
  const parsed: ParsedArgs = { positionals: [], settings: {}, flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (!arg.startsWith("--")) {
      parsed.positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const inline = eq === -1 ? undefined : arg.slice(eq + 1);
    const option = OPTIONS.find((o) => o.flag === name);
    const command = commandFlags.find((f) => f.name === name);
    if (!option && !command) throw new ConfigError(`unknown flag --${name} (see parley help)`);
    const isBoolean = option ? option.type === "boolean" : Boolean(command?.boolean);
    let value: string | boolean;
    if (inline !== undefined) value = inline;
    else if (isBoolean) value = true;
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith("--")) throw new ConfigError(`--${name} needs a value`);
      value = next;
      i++;
    }
    if (option) parsed.settings[option.key] = value;
    else parsed.flags[name] = value;
  }
  return parsed;
}
