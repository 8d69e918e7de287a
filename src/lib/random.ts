// Cryptographically random strings for ids, secrets and tokens.
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Uniformly random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const bytes = crypto.getRandomValues(new Uint8Array(length * 2));
    for (const byte of bytes) {
      if (byte < 248) out += BASE62[byte % 62]; // 248 = 62 * 4: drop the biased tail
      if (out.length === length) break;
    }
  }
  return out;
}
