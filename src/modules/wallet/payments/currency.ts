/** Decimal places of a currency's minor unit (USD 2, JPY 0, KWD 3), as ISO 4217 and Intl know them. */
export function minorDigits(currency: string): number {
  return new Intl.NumberFormat("en", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
}

/** Minor units (what a card is charged: cents) → micro-units (what the wallet counts). */
export function minorToMicros(amountMinor: number, currency: string): number {
  return amountMinor * 10 ** (6 - minorDigits(currency));
}

/** The smallest payment: Stripe's minimum charge is about 0.50 in most currencies. */
export const MIN_CREDIT_MICROS = 500_000;

/** Why `amountMinor` is too small to pay, or null. */
export function belowMinimum(amountMinor: number, currency: string): string | null {
  if (minorToMicros(amountMinor, currency) >= MIN_CREDIT_MICROS) return null;
  return `must be at least ${Math.ceil(MIN_CREDIT_MICROS / 10 ** (6 - minorDigits(currency)))} (0.50 ${currency}) in minor units`;
}
