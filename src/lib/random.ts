// Cryptographically random strings for ids, secrets and tokens.
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Random bytes are drawn 4 KiB at a time: one getRandomValues call per request id is a measurable cost.
const pool = new Uint8Array(4096);
let position = pool.length;

function randomByte(): number {
  if (position === pool.length) {
    crypto.getRandomValues(pool);
    position = 0;
  }
  const byte = pool[position];
  pool[position++] = 0; // a used byte never lingers in memory
  return byte;
}

/** Uniformly random base62 string (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62]; // 248 = 62 * 4: drop the biased tail
  }
  return out;
}
