// The database file store (files/database-store.ts) with a 10-minute call recording: bytes/s to store it
// and to read it back whole, a seek's 64 KiB range, the longest the event loop waited meanwhile, and what
// it costs in database size. PostgreSQL 15 started here with fsync on, as a real server runs.
//   bun scripts/bench/files.ts [--minutes 10] [--runs 3] [--chunk-kib 256]
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgres } from "../../src/db/postgres/connect.ts";
import type { Sqlite } from "../../src/db/connection.ts";
import { CHUNK_BYTES, DatabaseFileStore, fileConnections } from "../../src/files/database-store.ts";
import { wavHeader } from "../../src/voice/media/wav-format.ts";
import { startPostgres } from "../../test/helpers/postgres.ts";
import { median, percentile } from "./stats.ts";

const arg = (name: string, fallback: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const minutes = arg("--minutes", 10);
const runs = arg("--runs", 3);
const chunkBytes = arg("--chunk-kib", CHUNK_BYTES / 1024) * 1024;
const RATE = 8000; // what the telephone legs record: 8 kHz, stereo, 16-bit (32,000 bytes a second)

const server = startPostgres({ settings: { fsync: "on", synchronous_commit: "on", full_page_writes: "on" } });
server.sql("CREATE DATABASE bench");
const { db } = openPostgres(server.url("bench"));
const sqlite = db as unknown as Sqlite;
sqlite.exec(`CREATE TABLE stored_files (path text PRIMARY KEY, workspace_id text, content_type text NOT NULL, size bigint NOT NULL, chunk_bytes bigint NOT NULL, created_at bigint NOT NULL);
  CREATE TABLE file_chunks (path text NOT NULL REFERENCES stored_files (path) ON DELETE CASCADE, seq bigint NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (path, seq))`);
const store = new DatabaseFileStore(fileConnections(server.url("bench")), () => Date.now(), chunkBytes);
const dir = mkdtempSync(join(tmpdir(), "parley-files-bench-"));

/** A call's WAV: each side talks half the time (noise-like speech at a speaking level), silent while the other does. */
function callLike(frames: number): Uint8Array {
  const samples = new Int16Array(frames * 2);
  let seed = 1;
  for (let i = 0; i < frames; i++) {
    const side = Math.floor(i / (RATE * 4)) % 2; // turns of 4 s
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    samples[i * 2 + side] = ((seed >> 8) % 8000) - 4000;
  }
  const header = wavHeader({ sampleRate: RATE, channels: 2 }, samples.byteLength);
  const out = new Uint8Array(header.length + samples.byteLength);
  out.set(header);
  out.set(new Uint8Array(samples.buffer), header.length);
  return out;
}

/** How long the event loop kept a 1 ms timer waiting while `work` ran (what a live call's frames would feel): every gap. */
async function withStall<T>(work: () => Promise<T>): Promise<{ value: T; gaps: number[] }> {
  let last = performance.now();
  const gaps: number[] = [];
  const timer = setInterval(() => {
    const now = performance.now();
    gaps.push(now - last);
    last = now;
  }, 1);
  try {
    return { value: await work(), gaps };
  } finally {
    clearInterval(timer);
  }
}

const wav = callLike(minutes * 60 * RATE);
const size = wav.length;
const mb = size / 1e6;
const writes: number[] = [];
const reads: number[] = [];
const seeks: number[] = [];
const storeStalls: number[] = [];
const readStalls: number[] = [];
const sizeOf = () => Number(server.sql("SELECT pg_total_relation_size('file_chunks') + pg_total_relation_size('stored_files')", "bench"));
const before = sizeOf();
for (let run = 0; run < runs; run++) {
  const path = `recordings/ws_bench/call_${run}.wav`;
  const local = join(dir, `call_${run}.wav`);
  writeFileSync(local, wav);
  let start = performance.now();
  const upload = await withStall(() => store.moveIn(path, local, { workspaceId: "ws_bench", contentType: "audio/wav" }));
  writes.push(performance.now() - start);
  start = performance.now();
  const read = await withStall(async () => new Uint8Array(await new Response(await (await store.open(path))!.range(0, size - 1)).arrayBuffer()));
  reads.push(performance.now() - start);
  if (Buffer.compare(read.value, wav) !== 0) throw new Error("the file read back differs");
  storeStalls.push(...upload.gaps);
  readStalls.push(...read.gaps);
  for (let i = 0; i < 20; i++) {
    const at = Math.floor(((i + 0.5) / 20) * (size - 65_536));
    start = performance.now();
    await new Response(await (await store.open(path))!.range(at, at + 65_535)).arrayBuffer();
    seeks.push(performance.now() - start);
  }
}
const stored = (sizeOf() - before) / runs;
// The same wait with nothing to do: what this (shared, loaded) machine adds on its own.
const idle = (await withStall(() => Bun.sleep(1000))).gaps;

const f = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
console.log(`A ${minutes}-minute recording, ${f(mb, 1)} MB (8 kHz stereo WAV), ${runs} runs, PostgreSQL 15 on loopback, fsync on (medians):`);
console.log(`  store (${chunkBytes / 1024} KiB chunks, one transaction):  ${f(median(writes))} ms, ${f(mb / (median(writes) / 1000), 1)} MB/s`);
console.log(`  read back whole (a chunk per pull):         ${f(median(reads))} ms, ${f(mb / (median(reads) / 1000), 1)} MB/s`);
console.log(`  a 64 KiB range (a player's seek):          ${f(median(seeks), 2)} ms`);
const waits = (gaps: number[]) => `p99 ${f(percentile(gaps, 99), 1)} ms, max ${f(Math.max(...gaps), 1)} ms`;
console.log(`  the event loop's waits for a 1 ms timer, during a store: ${waits(storeStalls)}`);
console.log(`                                    during a whole read: ${waits(readStalls)}`);
console.log(`                                   idle, for comparison: ${waits(idle)}`);
console.log(`  database size per recording: ${f(stored / 1e6, 1)} MB (${f(stored / size, 2)}× the WAV; a call-hour ≈ ${f((stored / size) * 115.2, 0)} MB)`);
await store.close();
db.close();
server.stop();
rmSync(dir, { recursive: true, force: true });
