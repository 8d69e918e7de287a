// Money as the API counts it: integer micro-units of the instance's currency (1,000,000 to the unit),
// except what a card is charged (top-ups, automatic recharges), which is in minor units (cents).
export const MICROS = 1_000_000;

const formats = new Map<string, Intl.NumberFormat>();

function format(currency: string, precise: boolean): Intl.NumberFormat {
  const key = `${currency}:${precise}`;
  let found = formats.get(key);
  if (!found) {
    // Prices per minute are fractions of a cent: `precise` keeps up to six decimals.
    found = new Intl.NumberFormat(undefined, { style: "currency", currency, ...(precise ? { maximumFractionDigits: 6 } : {}) });
    formats.set(key, found);
  }
  return found;
}

/** Micro-units as people read money: `$12.50` (`precise`: `$0.0125`). */
export function formatMicros(micros: number, currency: string, options: { precise?: boolean } = {}): string {
  return format(currency, !!options.precise).format(micros / MICROS);
}

/** How many decimals the currency's minor unit has (2 for USD and EUR, 0 for JPY). */
export function minorDigits(currency: string): number {
  return format(currency, false).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units (cents) as money. */
export function formatMinor(minor: number, currency: string): string {
  return format(currency, false).format(minor / 10 ** minorDigits(currency));
}

/** An amount typed in currency units ("25", "25.50", "25,50"), or null when it is not a number. */
export function parseUnits(text: string): number | null {
  const cleaned = text.trim().replace(/\s/g, "").replace(/,(\d{1,2})$/, ".$1").replace(/,/g, "");
  if (!/^-?\d+(\.\d+)?$/.test(cleaned)) return null;
  return Number(cleaned);
}

export const unitsToMicros = (units: number): number => Math.round(units * MICROS);
export const unitsToMinor = (units: number, currency: string): number => Math.round(units * 10 ** minorDigits(currency));
/** Micro-units as a plain number of currency units, for a form's input. */
export const microsToUnits = (micros: number): string => String(micros / MICROS);
