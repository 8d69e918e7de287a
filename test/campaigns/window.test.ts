// Calling windows in local time, through the IANA database: weekdays, DST changes, and the hour
// that does not exist (or happens twice) when the clocks change.
import { describe, expect, test } from "bun:test";
import type { CallingWindow } from "../../src/db/schema/campaigns.ts";
import { instantOf, isWindowOpen, nextWindowOpening } from "../../src/modules/campaigns/window.ts";

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const weekdays: CallingWindow = { days: [1, 2, 3, 4, 5], start: "09:00", end: "17:00", timezone: "America/New_York", contact_timezone: true };

describe("isWindowOpen", () => {
  test("local hours on local weekdays; the end is exclusive", () => {
    expect(isWindowOpen(weekdays, at("2026-06-01T13:00:00Z"))).toBe(true); // Monday 09:00 EDT
    expect(isWindowOpen(weekdays, at("2026-06-01T12:59:00Z"))).toBe(false);
    expect(isWindowOpen(weekdays, at("2026-06-01T21:00:00Z"))).toBe(false); // 17:00
    expect(isWindowOpen(weekdays, at("2026-06-06T15:00:00Z"))).toBe(false); // Saturday
    // Friday 23:30 in Los Angeles is already Saturday in UTC: the contact's zone decides.
    expect(isWindowOpen({ ...weekdays, end: "24:00" }, at("2026-06-06T06:30:00Z"), "America/Los_Angeles")).toBe(true);
  });

  test("the same local hour is a different UTC hour in summer and winter", () => {
    expect(isWindowOpen(weekdays, at("2026-01-05T13:30:00Z"))).toBe(false); // 08:30 EST
    expect(isWindowOpen(weekdays, at("2026-07-06T13:30:00Z"))).toBe(true); // 09:30 EDT
  });
});

describe("nextWindowOpening", () => {
  test("now when open; otherwise the next opening, over a weekend that crosses the DST change", () => {
    expect(nextWindowOpening(weekdays, at("2026-06-01T14:00:00Z"))).toBe(at("2026-06-01T14:00:00Z"));
    // Friday 30 Oct 2026 after hours (EDT) → Monday 2 Nov 09:00 EST, after the clocks went back on Sunday.
    expect(iso(nextWindowOpening(weekdays, at("2026-10-30T22:00:00Z")))).toBe("2026-11-02T14:00:00.000Z");
    expect(iso(nextWindowOpening(weekdays, at("2026-03-06T22:00:00Z")))).toBe("2026-03-09T13:00:00.000Z"); // into EDT
  });

  test("a window that can never open says so", () => {
    expect(nextWindowOpening({ ...weekdays, days: [] }, at("2026-06-01T00:00:00Z"))).toBeNull();
    expect(nextWindowOpening({ ...weekdays, start: "17:00", end: "09:00" }, at("2026-06-01T00:00:00Z"))).toBeNull();
  });

  test("per contact zone: Tokyo's Monday 09:00 is midnight UTC, long before New York's", () => {
    expect(iso(nextWindowOpening(weekdays, at("2026-06-05T12:00:00Z"), "Asia/Tokyo"))).toBe("2026-06-08T00:00:00.000Z");
  });
});

describe("instantOf around clock changes", () => {
  test("an ordinary time", () => {
    expect(iso(instantOf(2026, 6, 1, 9 * 60, "America/New_York"))).toBe("2026-06-01T13:00:00.000Z");
  });
  test("02:30 on the spring-forward night does not exist: the window opens when the clocks jump to 03:00", () => {
    expect(iso(instantOf(2026, 3, 8, 150, "America/New_York"))).toBe("2026-03-08T07:00:00.000Z");
    const gap: CallingWindow = { ...weekdays, days: [7], start: "02:30", end: "05:00" };
    expect(iso(nextWindowOpening(gap, at("2026-03-08T05:00:00Z")))).toBe("2026-03-08T07:00:00.000Z");
  });
  test("01:30 on the fall-back night happens twice: the first one", () => {
    expect(iso(instantOf(2026, 11, 1, 90, "America/New_York"))).toBe("2026-11-01T05:30:00.000Z"); // 01:30 EDT
  });
});
