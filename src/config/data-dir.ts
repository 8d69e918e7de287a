import { accessSync, chmodSync, constants, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "./config.ts";

export interface DataDirLayout {
  root: string;
  database: string;
  secretFile: string;
  /** Native extensions and WASM extracted from the executable before loading. */
  cache: string;
}

export function dataDirLayout(root: string): DataDirLayout {
  return { root, database: join(root, "parley.db"), secretFile: join(root, "instance.key"), cache: join(root, "cache") };
}

/** Creates the data dir on first start and proves it is writable, with a one-line reason if not. */
export function prepareDataDir(root: string): DataDirLayout {
  const layout = dataDirLayout(root);
  try {
    mkdirSync(layout.cache, { recursive: true });
    accessSync(root, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    throw new ConfigError(`data dir ${root} is not writable (${code})`);
  }
  return layout;
}

/** The instance secret signs tokens and encrypts stored credentials; created once, readable only by us. */
export function loadInstanceSecret(layout: DataDirLayout): Uint8Array {
  if (!existsSync(layout.secretFile)) {
    const secret = crypto.getRandomValues(new Uint8Array(32));
    writeFileSync(layout.secretFile, Buffer.from(secret).toString("base64") + "\n", { mode: 0o600, flag: "wx" });
  }
  chmodSync(layout.secretFile, 0o600);
  const secret = Buffer.from(readFileSync(layout.secretFile, "utf8").trim(), "base64");
  if (secret.length < 32) throw new ConfigError(`${layout.secretFile} is damaged: expected 32 bytes of base64`);
  return new Uint8Array(secret);
}
