import { DAY } from "../lib/time.ts";
import { invalid } from "./errors.ts";

/** `from`/`to` query parameters as epoch ms: `to` defaults to now, `from` to `defaultDays` before `to`; each mistake names its field. */
export function periodOf(query: { from?: string; to?: string }, now: number, defaultDays = 30): { from: number; to: number } {
  const to = query.to === undefined ? now : Date.parse(query.to);
  const from = query.from === undefined ? to - defaultDays * DAY : Date.parse(query.from);
  if (Number.isNaN(from)) throw invalid("from", "must be a date-time");
  if (Number.isNaN(to)) throw invalid("to", "must be a date-time");
  if (from >= to) throw invalid("from", "must be before to");
  return { from, to };
}
