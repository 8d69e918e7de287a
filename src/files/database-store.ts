import { SQL } from "bun";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { open, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Sqlite } from "../db/connection.ts";
import { tlsOption } from "../db/postgres/protocol.ts";
import { parseDatabaseUrl } from "../db/postgres/url.ts";
import { randomBase62 } from "../lib/random.ts";
import { checkedPath, type FileMeta, type FileStore, type StoredFile } from "./store.ts";

/** A chunk row: a 10-minute call is ~75 of them, and a seek reads one or two. */
export const CHUNK_BYTES = 256 * 1024;
/** Ranges up to this size are answered whole, with a Content-Length; longer ones are streamed. */
export const BUFFERED_BYTES = 16 * 1024 * 1024;
const UNIQUE_VIOLATION = "23505";

/**
 * The file store's own connections to PostgreSQL: asynchronous (Bun's driver on this thread), unlike the
 * synchronous one the rest of the code shares, so a recording's megabytes never hold the event loop (through
 * the synchronous bridge, a 10-minute upload kept live calls' timers waiting up to 35 ms at a time).
 */
export function fileConnections(databaseUrl: string): SQL {
  const { url, tls, connectTimeoutS } = parseDatabaseUrl(databaseUrl);
  return new SQL({ url, tls: tlsOption(tls) as never, max: 4, idleTimeout: 10, connectionTimeout: connectTimeoutS });
}

/**
 * Files in the database (stored_files + file_chunks): every node reads them, and pg_dump backs them up
 * with the rest. A file is written in one transaction, so a reader on any node sees none of it or all of
 * it; a reader asks only for the chunks its range covers.
 */
export class DatabaseFileStore implements FileStore {
  readonly kind = "database";

  constructor(
    private readonly sql: SQL,
    private readonly now: () => number,
    private readonly chunkBytes = CHUNK_BYTES,
  ) {}

  async moveIn(path: string, localFile: string, meta: FileMeta): Promise<void> {
    checkedPath(path);
    const size = (await stat(localFile)).size;
    const handle = await open(localFile, "r");
    try {
      await this.sql.begin(async (tx) => {
        await tx`DELETE FROM stored_files WHERE path = ${path}`;
        await tx`INSERT INTO stored_files (path, workspace_id, content_type, size, chunk_bytes, created_at) VALUES (${path}, ${meta.workspaceId}, ${meta.contentType}, ${size}, ${this.chunkBytes}, ${this.now()})`;
        for (let seq = 0; seq * this.chunkBytes < size; seq++) {
          const bytes = Buffer.alloc(Math.min(this.chunkBytes, size - seq * this.chunkBytes));
          const { bytesRead } = await handle.read(bytes, 0, bytes.length, seq * this.chunkBytes);
          if (bytesRead !== bytes.length) throw new Error(`${localFile} changed while it was stored`);
          await tx`INSERT INTO file_chunks (path, seq, bytes) VALUES (${path}, ${seq}, ${bytes})`;
        }
      });
    } catch (error) {
      // Another node stored the same file at the same moment (two first requests for an MP3): theirs stands.
      if ((error as { errno?: string }).errno !== UNIQUE_VIOLATION) throw error;
    } finally {
      await handle.close();
    }
    await rm(localFile, { force: true });
  }

  private async meta(path: string): Promise<{ size: number; chunkBytes: number } | null> {
    const [row] = await this.sql`SELECT size, chunk_bytes FROM stored_files WHERE path = ${checkedPath(path)}`;
    return row ? { size: Number(row.size), chunkBytes: Number(row.chunk_bytes) } : null;
  }

  async open(path: string): Promise<StoredFile | null> {
    const meta = await this.meta(path);
    if (!meta) return null;
    return { size: meta.size, range: (start, end) => this.chunks(path, meta.chunkBytes, start, end) };
  }

  /**
   * The bytes start..end, reading only the chunks the range covers. Up to BUFFERED_BYTES they are
   * gathered first so the answer has a Content-Length (Bun drops it from streamed bodies); longer ranges
   * stream a chunk per pull.
   */
  private async chunks(path: string, chunkBytes: number, start: number, end: number): Promise<Blob | ReadableStream<Uint8Array>> {
    let at = start;
    const next = async (): Promise<Uint8Array> => {
      const seq = Math.floor(at / chunkBytes);
      const from = at - seq * chunkBytes;
      const to = Math.min(chunkBytes, end + 1 - seq * chunkBytes);
      const [row] = await this.sql`SELECT bytes FROM file_chunks WHERE path = ${path} AND seq = ${seq}`;
      if (!row || row.bytes.length < to) throw new Error(`${path} was removed while it was read`);
      at += to - from;
      return (row.bytes as Uint8Array).subarray(from, to);
    };
    if (end + 1 - start <= BUFFERED_BYTES) {
      const parts: Uint8Array[] = [];
      while (at <= end) parts.push(await next());
      return new Blob(parts);
    }
    return new ReadableStream<Uint8Array>({
      pull: async (controller) => {
        try {
          controller.enqueue(await next());
          if (at > end) controller.close();
        } catch (error) {
          controller.error(error);
        }
      },
    });
  }

  async size(path: string): Promise<number | null> {
    return (await this.meta(path))?.size ?? null;
  }

  async exists(path: string): Promise<boolean> {
    return (await this.meta(path)) !== null;
  }

  async delete(path: string): Promise<void> {
    await this.sql`DELETE FROM stored_files WHERE path = ${checkedPath(path)}`; // its chunks go with it (cascade)
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

  close(): Promise<void> {
    return this.sql.close();
  }
}

/**
 * A local file copied into the database's file store through `sqlite` (PostgreSQL behind the synchronous
 * interface), inside the caller's transaction (`parley db copy`); the local file stays. Its size.
 */
export function copyFileIn(sqlite: Sqlite, path: string, localFile: string, meta: FileMeta, now: number): number {
  const size = statSync(localFile).size;
  sqlite.prepare("INSERT INTO stored_files (path, workspace_id, content_type, size, chunk_bytes, created_at) VALUES (?, ?, ?, ?, ?, ?)").run(checkedPath(path), meta.workspaceId, meta.contentType, size, CHUNK_BYTES, now);
  const insert = sqlite.prepare("INSERT INTO file_chunks (path, seq, bytes) VALUES (?, ?, ?)");
  const fd = openSync(localFile, "r");
  try {
    for (let seq = 0; seq * CHUNK_BYTES < size; seq++) {
      const bytes = Buffer.alloc(Math.min(CHUNK_BYTES, size - seq * CHUNK_BYTES));
      if (readSync(fd, bytes, 0, bytes.length, seq * CHUNK_BYTES) !== bytes.length) throw new Error(`${localFile} changed while it was copied`);
      insert.run(path, seq, bytes);
    }
  } finally {
    closeSync(fd);
  }
  return size;
}
