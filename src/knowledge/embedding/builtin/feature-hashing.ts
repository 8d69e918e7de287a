// Signed feature hashing: each feature lands on one of the vector's dimensions with a pseudo-random
// sign, so colliding features cancel on average instead of piling up.

/** MurmurHash3's 32-bit finaliser: spreads every input bit over the whole word. */
function mix32(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units of text[start, end), finalised; `seed` separates feature families. */
export function hashText(text: string, seed: number, start = 0, end = text.length): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return mix32(h);
}

export function hashNumber(value: number, seed: number): number {
  return mix32(Math.imul(value ^ seed, 0x9e3779b1) ^ seed);
}

/** The dimension a hash lands on, with its sign folded in: +(i + 1) or -(i + 1). */
export function signedBucket(hash: number, dimension: number): number {
  const index = (hash & 0x7fffffff) % dimension;
  return hash >>> 31 ? -(index + 1) : index + 1;
}
