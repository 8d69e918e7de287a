import { sha256Hex } from "./crypto.ts";
import { randomBase62 } from "./random.ts";

/** Opaque one-time secrets (refresh tokens, reset and invitation tokens): only their hash is stored. */
export function newOpaqueToken(): { token: string; hash: string } {
  const token = randomBase62(48);
  return { token, hash: hashOpaqueToken(token) };
}

export function hashOpaqueToken(token: string): string {
  return sha256Hex(token);
}
