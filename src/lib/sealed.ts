import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

// AES-256-GCM for secrets at rest (stored responses that hold a key, provider credentials):
// the database file alone never reveals them; the instance key is needed too.
const VERSION = "v1";

export function seal(key: Uint8Array, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return `${VERSION}:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64")}`;
}

/** Throws if the value was not sealed with this key or was altered. */
export function unseal(key: Uint8Array, sealed: string): string {
  if (!sealed.startsWith(`${VERSION}:`)) throw new Error("not a sealed value");
  const raw = Buffer.from(sealed.slice(VERSION.length + 1), "base64");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
}

const opened = new WeakMap<Uint8Array, Map<string, string>>();
const MEMO_LIMIT = 1_000;

/**
 * unseal() for values read on a hot path (webhook signing secrets, once per delivery): a sealed
 * string never changes meaning, so its plaintext is kept, per key, for the next read.
 */
export function unsealMemo(key: Uint8Array, sealed: string): string {
  let memo = opened.get(key);
  if (!memo) opened.set(key, (memo = new Map()));
  let plaintext = memo.get(sealed);
  if (plaintext === undefined) {
    plaintext = unseal(key, sealed);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(sealed, plaintext);
  }
  return plaintext;
}
