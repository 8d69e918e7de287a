import { eq } from "drizzle-orm";
import { mkdir, readdir, rm, stat } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import type { AppContext } from "../../core/context.ts";
import { findNode, NODE_LOST_AFTER_MS } from "../../cluster/nodes.ts";
import { calls, LIVE_STATUSES } from "../../db/schema/index.ts";
import { fileStore } from "../../files/file-store.ts";
import type { StoredFile } from "../../files/store.ts";
import { ApiError } from "../../http/errors.ts";
import { randomBase62 } from "../../lib/random.ts";
import { HOUR, SECOND } from "../../lib/time.ts";
import { wavFileToMp3 } from "../../voice/media/mp3.ts";
import { recordingFile } from "./recording.ts";

// A call's WAV is written on the node that holds its media, in its data dir, while the call runs (no
// database work per frame); when the call ends it moves into the file store (files/): a no-op in the data
// dir (SQLite), an upload on PostgreSQL or a copy to --files-dir in a cluster. Readers on any node serve
// it from the store, waiting while the node that held the call is still storing it.

type RecordedCall = Pick<typeof calls.$inferSelect, "id" | "workspaceId" | "recordingPath" | "erasedAt" | "nodeId">;

/** What this process is doing to recordings, by stored path: readers and erasers here wait for it. */
interface Work {
  storing: Map<string, Promise<void>>;
  encoding: Map<string, Promise<void>>;
  /** When each upload began (its retries stop an hour later). */
  started: Map<string, number>;
  since(path: string): number;
  /** The server is stopping: uploads make their attempt in progress, and no other. */
  stopping: boolean;
}
const works = new WeakMap<AppContext, Work>();
function workOf(ctx: AppContext): Work {
  let work = works.get(ctx);
  if (!work) {
    const started = new Map<string, number>();
    work = { storing: new Map(), encoding: new Map(), started, since: (path) => started.get(path) ?? Date.now(), stopping: false };
    works.set(ctx, work);
  }
  return work;
}

const STORE_RETRY_FOR_MS = HOUR;
const STORE_RETRY_MAX_MS = 30 * SECOND;
/** A reader on another node waits this long for the holding node to store a recording, then answers 503. */
const WAIT_FOR_STORE_MS = 30 * SECOND;
const POLL_MS = 200;
/** A temporary file older than this was left by a process that died while encoding or copying. */
const ABANDONED_AFTER_MS = HOUR;

const notFound = () => new ApiError("not_found", "this call has no recording");

/** The call ended with a recording (its end is committed): the local WAV goes into the store, in the background. */
export function storeRecording(ctx: AppContext, call: Pick<RecordedCall, "id" | "workspaceId">, stored: string): void {
  const local = recordingFile(ctx.dataDir.root, stored);
  const { storing } = workOf(ctx);
  if (fileStore(ctx).kind === "data-dir" || !local || storing.has(stored)) return;
  const { started } = workOf(ctx);
  started.set(stored, Date.now());
  const done = moveIn(ctx, call, stored, local).finally(() => {
    storing.delete(stored);
    started.delete(stored);
  });
  storing.set(stored, done);
}

async function moveIn(ctx: AppContext, call: Pick<RecordedCall, "id" | "workspaceId">, stored: string, local: string): Promise<void> {
  const store = fileStore(ctx);
  const work = workOf(ctx);
  for (let attempt = 1; ; attempt++) {
    try {
      await store.moveIn(stored, local, { workspaceId: call.workspaceId, contentType: "audio/wav" });
      break;
    } catch (error) {
      // The store away (the database restarting, the mount gone): tried again for a while, then at the next start.
      if (attempt === 1) ctx.logger.warn("a recording could not be stored yet; trying again", { call_id: call.id, store: store.kind, error });
      if (work.stopping || Date.now() - work.since(stored) > STORE_RETRY_FOR_MS) {
        ctx.logger.error("a recording could not be stored: it stays in the data dir and is stored at the next start", { call_id: call.id, store: store.kind, error });
        return;
      }
      await Bun.sleep(Math.min(STORE_RETRY_MAX_MS, 500 * 2 ** attempt));
    }
  }
  await dropIfUnwanted(ctx, call.id, stored);
}

/** An erase on another node that ran while this one stored (or encoded) found nothing to remove: this removes it. */
async function dropIfUnwanted(ctx: AppContext, callId: string, wav: string, path = wav): Promise<void> {
  const row = ctx.db.select({ path: calls.recordingPath, erasedAt: calls.erasedAt }).from(calls).where(eq(calls.id, callId)).get();
  if (row?.path !== wav || row.erasedAt !== null) await fileStore(ctx).delete(path);
}

/** Uploads in progress here finish (a clean shutdown waits for them, up to `withinMs`, before the node says it stopped). */
export async function recordingsStored(ctx: AppContext, withinMs = Infinity): Promise<void> {
  const work = workOf(ctx);
  if (withinMs !== Infinity) work.stopping = true;
  const all = Promise.allSettled([...work.storing.values()]);
  await (withinMs === Infinity ? all : Promise.race([all, Bun.sleep(withinMs)]));
}

/** Another node held the call and is alive: it is storing the recording (right after the call's end). */
function anotherNodeStoring(ctx: AppContext, call: RecordedCall): boolean {
  if (fileStore(ctx).kind === "data-dir" || !call.nodeId || call.nodeId === ctx.nodeId) return false;
  const node = findNode(ctx, call.nodeId);
  return !!node && node.stoppedAt === null && node.lostAt === null && node.heartbeatAt >= ctx.clock.now() - NODE_LOST_AFTER_MS;
}

/** The stored file at `path` once the node that held the call has stored it; null when it will not be. */
async function whenStored(ctx: AppContext, call: RecordedCall, path: string): Promise<StoredFile | null> {
  await workOf(ctx).storing.get(path);
  const deadline = Date.now() + WAIT_FOR_STORE_MS;
  for (;;) {
    const file = await fileStore(ctx).open(path);
    if (file || !anotherNodeStoring(ctx, call)) return file;
    if (Date.now() >= deadline) {
      throw new ApiError("service_unavailable", "the node that held this call is still storing its recording; try again shortly", { headers: { "retry-after": "5" } });
    }
    await Bun.sleep(POLL_MS);
  }
}

/** The call's WAV: 410 once erased, 404 when it has none. */
export async function openRecording(ctx: AppContext, call: RecordedCall): Promise<StoredFile> {
  if (call.erasedAt !== null) throw new ApiError("gone", "the recording was erased");
  if (!call.recordingPath || !recordingFile(ctx.dataDir.root, call.recordingPath)) throw notFound();
  const file = await whenStored(ctx, call, call.recordingPath);
  if (!file) throw notFound();
  return file;
}

/**
 * The MP3 beside the WAV in the store, made on first request on whichever node is asked and kept (events
 * link to it). Requests here for one not made yet share one encoding; two nodes asked at the same moment
 * may both encode it, and the later copy replaces the earlier, whole.
 */
export async function openMp3(ctx: AppContext, call: RecordedCall): Promise<StoredFile> {
  await openRecording(ctx, call);
  const wav = call.recordingPath!;
  const mp3 = mp3Path(wav);
  const store = fileStore(ctx);
  const made = await store.open(mp3);
  if (made) return made;
  const { encoding } = workOf(ctx);
  let pending = encoding.get(mp3);
  if (!pending) {
    pending = encodeMp3(ctx, call, wav, mp3).finally(() => encoding.delete(mp3));
    encoding.set(mp3, pending);
  }
  await pending;
  const file = await store.open(mp3);
  if (!file) throw notFound(); // erased meanwhile
  return file;
}

const mp3Path = (wav: string) => wav.replace(/\.wav$/, ".mp3");

async function encodeMp3(ctx: AppContext, call: RecordedCall, wav: string, mp3: string): Promise<void> {
  const store = fileStore(ctx);
  const local = recordingFile(ctx.dataDir.root, mp3)!;
  await mkdir(dirname(local), { recursive: true });
  // Written aside and moved in whole, so a reader never sees half a file under the real name.
  const temp = `${local}.${randomBase62(8)}.tmp`;
  const source = await store.localCopy(wav, dirname(local));
  if (!source) throw notFound();
  try {
    await wavFileToMp3(source.file, temp);
    await store.moveIn(mp3, temp, { workspaceId: call.workspaceId, contentType: "audio/mpeg" });
  } finally {
    await source.release();
    await rm(temp, { force: true });
  }
  await dropIfUnwanted(ctx, call.id, wav, mp3);
}

/** Removes a call's recording and its MP3 from the store (and any local copy), after work on them here settles. */
export async function eraseRecording(ctx: AppContext, call: RecordedCall): Promise<void> {
  const wav = call.recordingPath;
  const local = wav ? recordingFile(ctx.dataDir.root, wav) : null;
  if (!wav || !local) return; // only files inside the store's root are ever removed
  // Wait for the node that held the call to store it (or give up): removing it first would leave its copy behind.
  await whenStored(ctx, call, wav).catch(() => null);
  await workOf(ctx).encoding.get(mp3Path(wav))?.catch(() => {});
  const store = fileStore(ctx);
  for (const path of [wav, mp3Path(wav)]) await store.delete(path);
  if (store.kind !== "data-dir") for (const path of [local, mp3Path(local)]) await rm(path, { force: true });
}

/**
 * At start: recordings a previous run of this data dir ended but did not get into the store (it was
 * killed, or the store was away) are stored now; what no call keeps is removed.
 */
export async function storeLeftRecordings(ctx: AppContext): Promise<number> {
  const store = fileStore(ctx);
  if (store.kind === "data-dir") return 0;
  const root = join(ctx.dataDir.root, "recordings");
  const files = await readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
  let stored = 0;
  for (const entry of files) {
    if (!entry.isFile()) continue;
    const local = join(entry.parentPath, entry.name);
    const path = relative(ctx.dataDir.root, local);
    if (!entry.name.endsWith(".wav")) {
      // An encoding's or a copy's temporary file that a killed process left behind (a running one is younger).
      const modified = (await stat(local).catch(() => null))?.mtimeMs ?? Date.now();
      if (modified < Date.now() - ABANDONED_AFTER_MS) await rm(local, { force: true });
      continue;
    }
    const call = ctx.db.select().from(calls).where(eq(calls.id, entry.name.slice(0, -".wav".length))).get();
    if (call && LIVE_STATUSES.includes(call.status)) continue; // still being written, or ended by the orphaned-calls sweep later
    if (call && call.recordingPath === path && call.erasedAt === null) {
      storeRecording(ctx, call, path);
      stored++;
    } else await rm(local, { force: true });
  }
  await recordingsStored(ctx);
  return stored;
}
