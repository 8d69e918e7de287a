import { existsSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { ApiError } from "../../http/errors.ts";
import { randomBase62 } from "../../lib/random.ts";
import { wavFileToMp3 } from "../../voice/media/mp3.ts";

/** Encodings in progress, by MP3 path: concurrent requests for a new recording share one. */
const encoding = new Map<string, Promise<string>>();

/** The MP3 beside the WAV, made on first request and kept (events link to it). */
export function mp3For(wavPath: string): Promise<string> {
  const mp3Path = wavPath.replace(/\.wav$/, ".mp3");
  if (existsSync(mp3Path)) return Promise.resolve(mp3Path);
  let pending = encoding.get(mp3Path);
  if (!pending) {
    pending = encodeMp3(wavPath, mp3Path).finally(() => encoding.delete(mp3Path));
    encoding.set(mp3Path, pending);
  }
  return pending;
}

/** Waits for an encoding of this recording still in progress (erasing must not race it). */
export async function mp3Settled(wavPath: string): Promise<void> {
  await encoding.get(wavPath.replace(/\.wav$/, ".mp3"))?.catch(() => {});
}

async function encodeMp3(wavPath: string, mp3Path: string): Promise<string> {
  // Written aside and renamed into place, so a reader never sees half a file under the real name.
  const temp = `${mp3Path}.${randomBase62(8)}.tmp`;
  try {
    await wavFileToMp3(wavPath, temp);
    await rename(temp, mp3Path);
  } finally {
    await rm(temp, { force: true });
  }
  return mp3Path;
}

/** The single byte range a Range header asks for; null when it should be ignored (RFC 9110 §14.2). */
function parseRange(header: string, size: number): { start: number; end: number } | "unsatisfiable" | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  // Other units, several ranges or bad syntax: a server may ignore the header and send everything.
  if (!match || (!match[1] && !match[2])) return null;
  if (!match[1]) {
    const suffix = Number(match[2]); // the last N bytes
    return suffix === 0 || size === 0 ? "unsatisfiable" : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] ? Number(match[2]) : size - 1;
  if (end < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(end, size - 1) };
}

/** A file answer with HTTP Range support (players seek), 206 for a satisfiable range, 416 otherwise. */
export function fileResponse(path: string, contentType: string, rangeHeader: string | null, headers: Record<string, string> = {}): Response {
  const file = Bun.file(path);
  const size = file.size;
  const base = { ...headers, "accept-ranges": "bytes", "content-type": contentType };
  const range = rangeHeader ? parseRange(rangeHeader, size) : null;
  if (range === null) return new Response(file, { headers: { ...base, "content-length": String(size) } });
  if (range === "unsatisfiable") return new Response(null, { status: 416, headers: { ...base, "content-range": `bytes */${size}` } });
  return new Response(file.slice(range.start, range.end + 1), {
    status: 206,
    headers: { ...base, "content-range": `bytes ${range.start}-${range.end}/${size}`, "content-length": String(range.end - range.start + 1) },
  });
}

/** What the database keeps: the recording's path relative to the data dir (a restored copy elsewhere finds its own files). */
export function storedRecordingPath(dataDir: string, file: string): string {
  return relative(dataDir, file);
}

/** The file a stored path names inside this data dir; null for anything that would point outside it. */
export function recordingFile(dataDir: string, stored: string | null): string | null {
  if (!stored || isAbsolute(stored)) return null;
  const file = resolve(dataDir, stored);
  return file.startsWith(resolve(dataDir) + sep) ? file : null;
}

export function requireRecording(dataDir: string, stored: string | null, erased: boolean): string {
  if (erased) throw new ApiError("gone", "the recording was erased");
  const path = recordingFile(dataDir, stored);
  if (!path || !existsSync(path)) throw new ApiError("not_found", "this call has no recording");
  return path;
}
