import { accessSync, constants, mkdirSync } from "node:fs";
import { copyFile, mkdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { randomBase62 } from "../lib/random.ts";
import { checkedPath, type FileStore, type StoredFile } from "./store.ts";

/**
 * Files in a directory: the data dir (SQLite's default, where recordings are written in the first place,
 * so taking one in is a no-op) or --files-dir, a shared directory (NFS, CephFS…) every node mounts.
 */
export class DirectoryFileStore implements FileStore {
  constructor(
    readonly root: string,
    readonly kind: "data-dir" | "files-dir",
  ) {}

  fileOf(path: string): string {
    return join(this.root, checkedPath(path));
  }

  async moveIn(path: string, localFile: string): Promise<void> {
    const target = this.fileOf(path);
    if (target === localFile) return;
    await mkdir(dirname(target), { recursive: true });
    try {
      await rename(localFile, target);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    }
    // Another filesystem (the usual case for a network mount): copied beside the target, renamed into place.
    const temp = `${target}.${randomBase62(8)}.tmp`;
    try {
      await copyFile(localFile, temp);
      await rename(temp, target);
    } finally {
      await rm(temp, { force: true });
    }
    await rm(localFile, { force: true });
  }

  async open(path: string): Promise<StoredFile | null> {
    const file = this.fileOf(path);
    const size = await this.size(path);
    if (size === null) return null;
    return { size, range: async (start, end) => (start === 0 && end === size - 1 ? Bun.file(file) : Bun.file(file).slice(start, end + 1)) };
  }

  async size(path: string): Promise<number | null> {
    try {
      const info = await stat(this.fileOf(path));
      return info.isFile() ? info.size : null;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async exists(path: string): Promise<boolean> {
    return (await this.size(path)) !== null;
  }

  async delete(path: string): Promise<void> {
    await rm(this.fileOf(path), { force: true });
  }

  async localCopy(path: string): Promise<{ file: string; release(): Promise<void> } | null> {
    return (await this.exists(path)) ? { file: this.fileOf(path), release: async () => {} } : null;
  }
}

/** --files-dir exists (or is made) and this process may write there: checked at start, with a one-line reason. */
export function prepareFilesDir(root: string): void {
  try {
    mkdirSync(join(root, "recordings"), { recursive: true });
    accessSync(join(root, "recordings"), constants.W_OK);
  } catch (error) {
    throw new ConfigError(`--files-dir ${root} is not writable (${(error as NodeJS.ErrnoException).code ?? "error"}): every node must mount the shared directory read-write`);
  }
}
