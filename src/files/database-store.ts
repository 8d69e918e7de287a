import { open, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Sqlite } from "../db/connection.ts";
import { randomBase62 } from "../lib/random.ts";
import { checkedPath, type FileMeta, type FileStore, type StoredFile } from "./store.ts";

/** A chunk row: big enough that a 10-minute call is ~75 rows, small enough that one statement never stalls the event loop. */
export const CHUNK_BYTES = 256 * 1024;
/** Ranges up to this size are answered whole, with a Content-Length; longer ones are streamed. */
export const BUFFERED_BYTES = 16 * 1024 * 1024;
/** Marks a file still being uploaded: its rows are renamed to the real path in one short transaction at the end. */
const STAGING = ".upload-";

/**
 * Files in the database (stored_files + file_chunks): every node reads them, and pg_dump backs them up
 * with the rest. Each chunk is one statement of its own, so a long recording's upload or download never
 * holds the (synchronous) connection for long; a reader asks only for the chunks its range covers.
 */
export class DatabaseFileStore implements FileStore {
  readonly kind = "database";

  constructor(
    private readonly sqlite: Sqlite,
    private readonly now: () => number,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {}

  async moveIn(path: string, localFile: string, meta: FileMeta): Promise<void> {
    checkedPath(path);
    const size = (await stat(localFile)).size;
    // Uploaded under a staging name, then renamed in one transaction: a reader sees no file, then the whole one.
    const staging = `${path}${STAGING}${randomBase62(8)}`;
    const row = [meta.workspaceId, meta.contentType, size, this.chunkBytes, this.now()];
    this.sqlite.prepare("INSERT INTO stored_files (path, workspace_id, content_type, size, chunk_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(staging, ...row);
    try {
      const insert = this.sqlite.prepare("INSERT INTO file_chunks (path, seq, bytes) VALUES (?, ?, ?)");
      const handle = await open(localFile, "r");
      try {
        for (let seq = 0; seq * this.chunkBytes < size; seq++) {
          const bytes = Buffer.alloc(Math.min(this.chunkBytes, size - seq * this.chunkBytes));
          const { bytesRead } = await handle.read(bytes, 0, bytes.length, seq * this.chunkBytes);
          if (bytesRead !== bytes.length) throw new Error(`${localFile} changed while it was stored`);
          insert.run(staging, seq, bytes);
        }
      } finally {
        await handle.close();
      }
      this.sqlite.transaction(() => {
        this.sqlite.prepare("DELETE FROM stored_files WHERE path = ?").run(path);
        this.sqlite.prepare("INSERT INTO stored_files (path, workspace_id, content_type, size, chunk_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(path, ...row);
        this.sqlite.prepare("UPDATE file_chunks SET path = ? WHERE path = ?").run(path, staging);
        this.sqlite.prepare("DELETE FROM stored_files WHERE path = ?").run(staging);
      })();
    } catch (error) {
      try {
        this.sqlite.prepare("DELETE FROM stored_files WHERE path = ?").run(staging);
      } catch {} // the database is away: removeAbandonedUploads clears it later
      throw error;
    }
    await rm(localFile, { force: true });
  }

  private meta(path: string): { size: number; chunkBytes: number } | undefined {
    const row = this.sqlite.prepare("SELECT size, chunk_bytes FROM stored_files WHERE path = ?").get(checkedPath(path)) as { size: number; chunk_bytes: number } | undefined;
    return row && { size: row.size, chunkBytes: row.chunk_bytes };
  }

  async open(path: string): Promise<StoredFile | null> {
    const meta = this.meta(path);
    if (!meta) return null;
    return { size: meta.size, range: (start, end) => this.chunks(path, meta.chunkBytes, start, end) };
  }

  /**
   * The bytes start..end, reading only the chunks the range covers. Up to BUFFERED_BYTES they are
   * gathered first (a chunk per turn of the event loop) so the answer has a Content-Length (Bun drops
   * it from streamed bodies); longer ranges stream a chunk per pull.
   */
  private async chunks(path: string, chunkBytes: number, start: number, end: number): Promise<Blob | ReadableStream<Uint8Array>> {
    const read = this.sqlite.prepare("SELECT bytes FROM file_chunks WHERE path = ? AND seq = ?");
    let at = start;
    const next = (): Uint8Array => {
      const seq = Math.floor(at / chunkBytes);
      const from = at - seq * chunkBytes;
      const to = Math.min(chunkBytes, end + 1 - seq * chunkBytes);
      const row = read.get(path, seq) as { bytes: Uint8Array } | undefined;
      if (!row || row.bytes.length < to) throw new Error(`${path} was removed while it was read`);
      at += to - from;
      return row.bytes.subarray(from, to);
    };
    if (end + 1 - start <= BUFFERED_BYTES) {
      const parts: Uint8Array[] = [];
      while (at <= end) {
        parts.push(next());
        if (at <= end) await new Promise((resolve) => setImmediate(resolve));
      }
      return new Blob(parts);
    }
    return new ReadableStream<Uint8Array>({
      pull: (controller) => {
        try {
          controller.enqueue(next());
          if (at > end) controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
    });
  }

  async size(path: string): Promise<number | null> {
    return this.meta(path)?.size ?? null;
  }

  async exists(path: string): Promise<boolean> {
    return this.meta(path) !== undefined;
  }

  async delete(path: string): Promise<void> {
    this.sqlite.prepare("DELETE FROM stored_files WHERE path = ?").run(checkedPath(path)); // its chunks go with it (cascade)
  }

  async localCopy(path: string, tempDir: string): Promise<{ file: string; release(): Promise<void> } | null> {
    const file = await this.open(path);
    if (!file) return null;
    const copy = join(tempDir, `copy-${randomBase62(8)}.tmp`);
    try {
      const writer = Bun.file(copy).writer();
      if (file.size > 0) for await (const bytes of new Response(await file.range(0, file.size - 1)).body!) writer.write(bytes);
      await writer.end();
    } catch (error) {
      await rm(copy, { force: true });
      throw error;
    }
    return { file: copy, release: () => rm(copy, { force: true }) };
  }

  /** Uploads a process stopped in the middle of (killed, the database lost), older than `olderThanMs`. */
  removeAbandonedUploads(olderThanMs: number): number {
    return this.sqlite.prepare(`DELETE FROM stored_files WHERE path LIKE ? AND created_at < ?`).run(`%${STAGING}%`, this.now() - olderThanMs).changes;
  }
}
