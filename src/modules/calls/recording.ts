import { existsSync } from "node:fs";
import { ApiError } from "../../http/errors.ts";
import { wavFileToMp3 } from "../../voice/media/mp3.ts";

/** The MP3 beside the WAV, made on first request and kept (events link to it). */
export async function mp3For(wavPath: string): Promise<string> {
  const mp3Path = wavPath.replace(/\.wav$/, ".mp3");
  if (!existsSync(mp3Path)) {
    const temp = `${mp3Path}.${process.pid}.tmp`;
    await wavFileToMp3(wavPath, temp);
    await Bun.write(mp3Path, Bun.file(temp));
    await Bun.file(temp).delete();
  }
  return mp3Path;
}

/** A file answer with HTTP Range support (players seek), 206 for a satisfiable range, 416 otherwise. */
export function fileResponse(path: string, contentType: string, rangeHeader: string | null, headers: Record<string, string> = {}): Response {
  const file = Bun.file(path);
  const size = file.size;
  const base = { ...headers, "accept-ranges": "bytes", "content-type": contentType };
  if (!rangeHeader) return new Response(file, { headers: { ...base, "content-length": String(size) } });
  const match = /^bytes=(\d*)-(\d*)$/.exec(rangeHeader.trim());
  let start = match?.[1] ? Number(match[1]) : NaN;
  let end = match?.[2] ? Number(match[2]) : NaN;
  if (match && !match[1] && match[2]) {
    start = Math.max(0, size - Number(match[2])); // the last N bytes
    end = size - 1;
  }
  if (Number.isNaN(end)) end = size - 1;
  if (!match || Number.isNaN(start) || start > end || start >= size) {
    return new Response(null, { status: 416, headers: { ...base, "content-range": `bytes */${size}` } });
  }
  end = Math.min(end, size - 1);
  return new Response(file.slice(start, end + 1), {
    status: 206,
    headers: { ...base, "content-range": `bytes ${start}-${end}/${size}`, "content-length": String(end - start + 1) },
  });
}

export function requireRecording(path: string | null, erased: boolean): string {
  if (erased) throw new ApiError("gone", "the recording was erased");
  if (!path || !existsSync(path)) throw new ApiError("not_found", "this call has no recording");
  return path;
}
