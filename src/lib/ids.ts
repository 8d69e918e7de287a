import { randomBase62 } from "./random.ts";

/** Every object prefix the API hands out (DESIGN.md "IDs"). */
export type IdPrefix =
  | "usr" | "ws" | "mem" | "inv" | "ses" | "key" | "aud" | "req" | "rst"
  | "agent" | "tool" | "call" | "kb" | "src" | "pn" | "wgt" | "cmp" | "sch" | "evt" | "txn" | "job"
  | "prv" | "car" | "whe" | "dlv" | "att" | "chk" | "cht" | "tcl";

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(20)}`;
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}_`) && id.length > prefix.length + 1;
}
