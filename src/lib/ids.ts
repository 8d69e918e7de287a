import { BASE62_CODES, fromCodes, pushCodes, pushRandomBase62, randomBase62 } from "./random.ts";

/** Every object prefix the API hands out (DESIGN.md "IDs"). */
export type IdPrefix =
  | "usr" | "ws" | "mem" | "inv" | "ses" | "key" | "aud" | "req" | "rst"
  | "agent" | "tool" | "call" | "kb" | "src" | "pn" | "wgt" | "cmp" | "sch" | "evt" | "txn" | "job"
  | "prv" | "car" | "whe" | "dlv" | "att" | "chk" | "cht" | "tcl" | "wss" | "led" | "prc"
  | "msg" | "nls" | "cev" | "demo" | "dver" | "atest" | "trun" | "tres";

export function newId(prefix: IdPrefix): string {
  return randomBase62(20, `${prefix}_`);
}

/**
 * An id that sorts by creation time: 8 base62 characters of the epoch ms, then 12 random ones (same
 * length as newId). For append-heavy tables (audit log, events, deliveries, attempts, jobs), so a new
 * row's primary-key entry lands at the end of the index instead of at a random page (4× cheaper).
 */
export function newTimeOrderedId(prefix: IdPrefix, now: number): string {
  const codes = pushCodes([], `${prefix}_`);
  const time = Math.max(0, Math.floor(now));
  // Most significant digit first, so ids sort by time (exact: every quotient is an integer below 2^53).
  for (let power = 62 ** 7; power >= 1; power /= 62) codes.push(BASE62_CODES[Math.floor(time / power) % 62]);
  return fromCodes(pushRandomBase62(codes, 12));
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
