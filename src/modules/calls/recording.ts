import { isAbsolute, relative, resolve, sep } from "node:path";
import type { StoredFile } from "../../files/store.ts";

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
  if (match[2] && Number(match[2]) < start) return null;
  // Checked before an open end is filled in (bytes=<size>- is past the end, not reversed).
  if (start >= size) return "unsatisfiable";
  return { start, end: match[2] ? Math.min(Number(match[2]), size - 1) : size - 1 };
}

/** A file answer with HTTP Range support (players seek), 206 for a satisfiable range, 416 otherwise. */
export async function fileResponse(file: StoredFile, contentType: string, rangeHeader: string | null, headers: Record<string, string> = {}): Promise<Response> {
  const size = file.size;
  const base = { ...headers, "accept-ranges": "bytes", "content-type": contentType };
  const range = rangeHeader ? parseRange(rangeHeader, size) : null;
  if (range === null) return new Response(size === 0 ? null : await file.range(0, size - 1), { headers: { ...base, "content-length": String(size) } });
  if (range === "unsatisfiable") return new Response(null, { status: 416, headers: { ...base, "content-range": `bytes */${size}` } });
  return new Response(await file.range(range.start, range.end), {
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
