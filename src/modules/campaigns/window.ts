// Calling windows in local time: "Monday to Friday, 09:00–17:00 in America/New_York". Local clock
// times are converted through the IANA database (Intl), so daylight-saving changes move the window
// with the clocks, as a person would expect.
import type { CallingWindow } from "../../db/schema/campaigns.ts";
import { DAY, MINUTE } from "../../lib/time.ts";

interface LocalTime {
  year: number;
  month: number;
  day: number;
  /** ISO weekday, 1 = Monday. */
  weekday: number;
  minutes: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const WEEKDAYS: Record<string, number> = { Mon: 1, Tue: 2, Wed: 3, Thu: 4, Fri: 5, Sat: 6, Sun: 7 };

function formatter(zone: string): Intl.DateTimeFormat {
  let format = formatters.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", weekday: "short", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric" });
    formatters.set(zone, format);
  }
  return format;
}

export function localTime(instant: number, zone: string): LocalTime {
  const parts = Object.fromEntries(formatter(zone).formatToParts(instant).map((part) => [part.type, part.value]));
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    weekday: WEEKDAYS[parts.weekday],
    minutes: Number(parts.hour) * 60 + Number(parts.minute),
  };
}

/** "HH:MM" → minutes after midnight ("24:00" is the end of the day). */
export function clockMinutes(value: string): number {
  const [hours, minutes] = value.split(":").map(Number);
  return hours * 60 + minutes;
}

/** Offset of `zone` from UTC at `instant`, in ms (positive east of Greenwich). */
function offsetAt(instant: number, zone: string): number {
  const local = localTime(instant, zone);
  const asUtc = Date.UTC(local.year, local.month - 1, local.day, 0, local.minutes);
  return asUtc - Math.floor(instant / MINUTE) * MINUTE;
}

/** A local time's fields as if they were UTC: comparable wall-clock readings. */
function wallClock(instant: number, zone: string): number {
  const local = localTime(instant, zone);
  return Date.UTC(local.year, local.month - 1, local.day, 0, local.minutes);
}

/**
 * The first instant the clocks in `zone` read this local time or later: the time itself, or in a
 * fall-back overlap the first of the two; in a spring-forward gap (02:30 that never happens) the
 * moment the clocks jump past it (03:00), as a window opening then would.
 */
export function instantOf(year: number, month: number, day: number, minutes: number, zone: string): number {
  const wall = Date.UTC(year, month - 1, day, 0, minutes);
  const earlier = wall - offsetAt(wall - DAY / 2, zone);
  const later = wall - offsetAt(wall + DAY / 2, zone);
  for (const candidate of [Math.min(earlier, later), Math.max(earlier, later)]) {
    if (wallClock(candidate, zone) === wall) return candidate;
  }
  // In a gap: search the hour the clocks skip for the jump (wall time only moves forward there).
  let before = Math.min(earlier, later);
  let after = Math.max(earlier, later);
  while (after - before > MINUTE) {
    const middle = before + Math.floor((after - before) / 2 / MINUTE) * MINUTE;
    if (wallClock(middle, zone) >= wall) after = middle;
    else before = middle;
  }
  return after;
}

export function isWindowOpen(window: CallingWindow, instant: number, zone = window.timezone): boolean {
  const local = localTime(instant, zone);
  return window.days.includes(local.weekday) && local.minutes >= clockMinutes(window.start) && local.minutes < clockMinutes(window.end);
}

/** The next instant the window opens at or after `instant` (itself when open), or null if it never does. */
export function nextWindowOpening(window: CallingWindow, instant: number, zone = window.timezone): number | null {
  if (isWindowOpen(window, instant, zone)) return instant;
  if (!window.days.length || clockMinutes(window.start) >= clockMinutes(window.end)) return null;
  const today = localTime(instant, zone);
  // Eight days cover every weekday once more; noon keeps the date arithmetic clear of DST edges.
  const noon = Date.UTC(today.year, today.month - 1, today.day, 12);
  for (let offset = 0; offset <= 7; offset++) {
    const date = new Date(noon + offset * DAY);
    const y = date.getUTCFullYear();
    const m = date.getUTCMonth() + 1;
    const d = date.getUTCDate();
    const opens = instantOf(y, m, d, clockMinutes(window.start), zone);
    if (opens < instant || !window.days.includes(localTime(opens, zone).weekday)) continue;
    return opens;
  }
  return null;
}
