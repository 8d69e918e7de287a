// Bytes → string for uploaded text files, which arrive in whatever encoding the author's editor used.

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });
// Legacy Windows exports (Excel CSV, Notepad) are the common non-UTF-8 case; every byte maps to something.
const windows1252 = new TextDecoder("windows-1252");

/** UTF-8 (BOM stripped) when valid; UTF-16 when a BOM says so; otherwise windows-1252 rather than failing. */
export function decodeText(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  try {
    return utf8.decode(bytes);
  } catch {
    return windows1252.decode(bytes);
  }
}

/** True when the bytes look like text rather than a binary format: a UTF-16 BOM, or no NUL in the first 8 KiB. */
export function looksLikeText(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) return true;
  return !bytes.subarray(0, 8192).includes(0);
}
