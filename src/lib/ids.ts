import { randomBase62 } from "./random.ts";

/** Every object prefix the API hands out (DESIGN.md "IDs"). */
export type IdPrefix =
  | "usr" | "ws" | "mem" | "inv" | "ses" | "key" | "aud" | "req" | "rst"
  | "agent" | "tool" | "call" | "kb" | "src" | "pn" | "wgt" | "cmp" | "sch" | "evt" | "txn" | "job"
  | "prv" | "car" | "whe" | "dlv" | "att" | "chk" | "cht" | "tcl" | "wss" | "led" | "prc"
  | "msg" | "nls" | "cev" | "demo" | "dver";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * An id that sorts by creation time: 8 base62 characters of the epoch ms, then 12 random ones (same
 * length as newId). For append-heavy tables (audit log, events, deliveries, attempts, jobs), so a new
 * row's primary-key entry lands at the end of the index instead of at a random page (4× cheaper).
 */
export function newTimeOrderedId(prefix: IdPrefix, now: number): string {
  let time = "";
  for (let rest = Math.max(0, Math.floor(now)), i = 0; i < 8; i++, rest = Math.floor(rest / 62)) time = BASE62[rest % 62] + time;
  return `${prefix}_${time}${randomBase62(12)}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
