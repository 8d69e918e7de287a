// The file store's backends: a directory (the data dir, or --files-dir on another filesystem) and
// PostgreSQL in chunks. Each takes a finished file in whole, answers exact byte ranges, and deletes.
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BUFFERED_BYTES, DatabaseFileStore, fileConnections } from "../../src/files/database-store.ts";
import { DirectoryFileStore } from "../../src/files/directory-store.ts";
import type { FileStore } from "../../src/files/store.ts";
import { freshDatabase } from "../helpers/postgres.ts";
import { FROM_SOURCE, runParley } from "../helpers/process.ts";
import { createTestContext } from "../helpers/server.ts";

const work = mkdtempSync(join(tmpdir(), "parley-store-"));
// tmpfs: another filesystem than /tmp's, as a network mount is (rename fails with EXDEV, so it is copied).
const shm = existsSync("/dev/shm") ? mkdtempSync("/dev/shm/parley-store-") : mkdtempSync(join(tmpdir(), "parley-store-shm-"));
// Migrated by a context; the stores use their own connections, as on two nodes.
const database = createTestContext({ databaseUrl: freshDatabase() });
const connections = [fileConnections(database.ctx.config.databaseUrl), fileConnections(database.ctx.config.databaseUrl)];
afterAll(async () => {
  for (const sql of connections) await sql.close();
  database.close();
  rmSync(work, { recursive: true, force: true });
  rmSync(shm, { recursive: true, force: true });
});

let files = 0;
function localFile(bytes: Uint8Array): string {
  const path = join(work, `local-${++files}.wav`);
  writeFileSync(path, bytes);
  return path;
}
const pattern = (size: number) => Uint8Array.from({ length: size }, (_, i) => (i * 31 + (i >> 8)) % 256);
const read = async (store: FileStore, path: string, start: number, end: number) => new Uint8Array(await new Response(await (await store.open(path))!.range(start, end)).arrayBuffer());

const backends: [string, () => FileStore][] = [
  ["a directory on another filesystem (--files-dir)", () => new DirectoryFileStore(shm, "files-dir")],
  ["PostgreSQL in 1,000-byte chunks", () => new DatabaseFileStore(connections[0], () => Date.now(), 1000)],
];

describe.each(backends)("%s", (_name, make) => {
  const store = make();

  test("takes a file in whole (the local file goes), answers exact ranges across chunks, deletes", async () => {
    const bytes = pattern(10_500);
    const local = localFile(bytes);
    await store.moveIn("recordings/ws_1/call_1.wav", local, { workspaceId: "ws_1", contentType: "audio/wav" });
    expect(existsSync(local)).toBe(false);
    expect(await store.size("recordings/ws_1/call_1.wav")).toBe(10_500);
    expect(await store.exists("recordings/ws_1/call_2.wav")).toBe(false);
    expect(await store.open("recordings/ws_1/call_2.wav")).toBeNull();
    for (const [start, end] of [[0, 10_499], [0, 0], [999, 1000], [1500, 7321], [10_000, 10_499], [10_499, 10_499]]) {
      expect({ start, end, same: Buffer.compare(await read(store, "recordings/ws_1/call_1.wav", start, end), bytes.subarray(start, end + 1)) }).toEqual({ start, end, same: 0 });
    }
    const copy = (await store.localCopy("recordings/ws_1/call_1.wav", work))!;
    expect(new Uint8Array(await Bun.file(copy.file).arrayBuffer())).toEqual(bytes);
    await copy.release();
    // A second take replaces the first whole.
    await store.moveIn("recordings/ws_1/call_1.wav", localFile(pattern(2_000)), { workspaceId: "ws_1", contentType: "audio/wav" });
    expect(await read(store, "recordings/ws_1/call_1.wav", 0, 1_999)).toEqual(pattern(2_000));
    await store.delete("recordings/ws_1/call_1.wav");
    await store.delete("recordings/ws_1/call_1.wav"); // again: no error
    expect(await store.exists("recordings/ws_1/call_1.wav")).toBe(false);
  });

  test("refuses paths that would leave its root", async () => {
    for (const path of ["/etc/passwd", "../x.wav", "recordings/../../x.wav", ""]) await expect(store.exists(path)).rejects.toThrow("not a stored file path");
  });
});

describe("PostgreSQL chunks", () => {
  const store = new DatabaseFileStore(connections[0], () => Date.now());
  const seen = new DatabaseFileStore(connections[1], () => Date.now());

  test("another connection sees no file while it is uploaded, then the whole of it; rows of 256 KiB", async () => {
    const bytes = pattern(3 * 1024 * 1024 + 5);
    const upload = store.moveIn("recordings/ws_1/long.wav", localFile(bytes), { workspaceId: "ws_1", contentType: "audio/wav" });
    // What a reader on another node gets meanwhile: nothing, or all of it.
    const seenStates = new Set<string>();
    const look = async () => {
      const file = await seen.open("recordings/ws_1/long.wav");
      if (!file) return seenStates.add("none");
      const got = await new Response(await file.range(0, file.size - 1)).arrayBuffer().catch(() => null);
      seenStates.add(got && Buffer.compare(new Uint8Array(got), bytes) === 0 ? "whole" : "partial");
    };
    let done = false;
    void upload.finally(() => (done = true));
    while (!done) {
      await look();
      await Bun.sleep(1);
    }
    await upload;
    await look();
    expect(seenStates.has("none")).toBe(true);
    expect(seenStates.has("partial")).toBe(false);
    expect(seenStates.has("whole")).toBe(true);
    const rows = database.ctx.sqlite.prepare("SELECT seq, length(bytes) AS n FROM file_chunks WHERE path = ? ORDER BY seq").all("recordings/ws_1/long.wav") as { seq: number; n: number }[];
    expect(rows.map((r) => r.n)).toEqual([...Array(12).fill(262_144), 5]);
    expect(await read(seen, "recordings/ws_1/long.wav", 262_100, 786_500)).toEqual(bytes.subarray(262_100, 786_501));
  });

  test("two nodes storing the same path at once (two first requests for an MP3): both return, one whole copy stands", async () => {
    const [a, b] = [pattern(700_000), pattern(700_000).reverse()];
    await Promise.all([store.moveIn("recordings/ws_1/twice.mp3", localFile(a), { workspaceId: "ws_1", contentType: "audio/mpeg" }), seen.moveIn("recordings/ws_1/twice.mp3", localFile(b), { workspaceId: "ws_1", contentType: "audio/mpeg" })]);
    const stored = await read(store, "recordings/ws_1/twice.mp3", 0, 699_999);
    expect(Buffer.compare(stored, a) === 0 || Buffer.compare(stored, b) === 0).toBe(true);
  });

  test("a range longer than the buffered limit streams, whole and exact", async () => {
    const bytes = pattern(BUFFERED_BYTES + 300_000);
    await store.moveIn("recordings/ws_1/hour.wav", localFile(bytes), { workspaceId: "ws_1", contentType: "audio/wav" });
    const file = (await seen.open("recordings/ws_1/hour.wav"))!;
    const body = await file.range(7, bytes.length - 1);
    expect(body).toBeInstanceOf(ReadableStream);
    expect(Buffer.compare(new Uint8Array(await new Response(body).arrayBuffer()), bytes.subarray(7))).toBe(0);
    await store.delete("recordings/ws_1/hour.wav");
    expect(database.ctx.sqlite.prepare("SELECT count(*) AS n FROM file_chunks WHERE path = ?").get("recordings/ws_1/hour.wav")).toEqual({ n: 0 });
  });
});

test("serve refuses a --files-dir it cannot write, in one line, before it listens", async () => {
  const file = join(work, "not-a-dir");
  writeFileSync(file, "x");
  const result = await runParley(FROM_SOURCE, ["serve", "--port", "0", "--data-dir", join(work, "data"), "--files-dir", join(file, "files")]);
  expect(result.exitCode).not.toBe(0);
  expect(result.stderr.trim().split("\n").filter((line) => line.startsWith("parley: error: "))).toEqual([`parley: error: --files-dir ${join(file, "files")} is not writable (ENOTDIR): every node must mount the shared directory read-write`]);
});
