// Files every node of a cluster reads (call recordings and their MP3s), behind one interface: a directory
// (the data dir on SQLite, or --files-dir, a network filesystem every node mounts) or the database itself
// (PostgreSQL, in chunks). Paths are relative, as calls.recording_path keeps them: recordings/<ws>/<call>.wav.
import { isAbsolute, normalize, sep } from "node:path";

export interface FileMeta {
  workspaceId: string | null;
  contentType: string;
}

/** A stored file's size, and its bytes from `start` to `end` (inclusive) read as they are sent. */
export interface StoredFile {
  readonly size: number;
  range(start: number, end: number): Promise<Blob | ReadableStream<Uint8Array>>;
}

export interface FileStore {
  /** Where the files are: said in logs and `parley db copy`'s notes. */
  readonly kind: "data-dir" | "files-dir" | "database";
  /**
   * Takes a finished local file in under `path`; afterwards the local file is gone. A reader sees the
   * old file or the whole new one, never part of it.
   */
  moveIn(path: string, localFile: string, meta: FileMeta): Promise<void>;
  open(path: string): Promise<StoredFile | null>;
  size(path: string): Promise<number | null>;
  exists(path: string): Promise<boolean>;
  /** Removes the file; one that is not there is no error. */
  delete(path: string): Promise<void>;
  /** The file as a local file, for tools that read files (the MP3 encoder); `release` removes a temporary copy. */
  localCopy(path: string, tempDir: string): Promise<{ file: string; release(): Promise<void> } | null>;
}

/** A stored path: relative, normalized, inside the root (a row can never name a file elsewhere). */
export function checkedPath(path: string): string {
  const normal = normalize(path);
  if (!path || isAbsolute(path) || normal !== path || normal === ".." || normal.startsWith(`..${sep}`)) throw new Error(`not a stored file path: ${path}`);
  return normal;
}
