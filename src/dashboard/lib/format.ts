// Dates as people read them, in the browser's language and time zone.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatDate(iso: string | null | undefined, never = "Never"): string {
  return iso ? dateTime.format(new Date(iso)) : never;
}

/** A user agent shortened to the browser and system a person recognises. */
export function describeDevice(userAgent: string | null): string {
  if (!userAgent) return "Unknown device";
  const browser = /(Edg|OPR|Firefox|Chrome|Safari)\/[\d.]+/.exec(userAgent)?.[0].replace("Edg", "Edge").replace("OPR", "Opera").split(".")[0];
  const system = /(Windows|Android|iPhone|iPad|Mac OS X|Linux|CrOS)/.exec(userAgent)?.[0].replace("Mac OS X", "macOS").replace("CrOS", "ChromeOS");
  return [browser, system].filter(Boolean).join(" on ") || userAgent.slice(0, 60);
}
