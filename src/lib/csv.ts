/** One CSV line (RFC 4180), with cells that begin like formulas neutralised against CSV injection. */
export function csvLine(cells: unknown[]): string {
  return cells.map(csvCell).join(",") + "\r\n";
}

/** A plain number (a phone number in E.164, a negative amount): a spreadsheet cannot run it, so it stays as is. */
const PLAIN_NUMBER = /^[+-]?\d+(\.\d+)?$/;

export function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  let text = typeof value === "object" ? JSON.stringify(value) : String(value);
  // A spreadsheet would run `=…`, `+…`, `-…`, `@…` (and tab/CR-led) cells: prefix them so they stay text.
  if (/^[=+\-@\t\r]/.test(text) && !PLAIN_NUMBER.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
