import type { SlotDefinition } from "./schema.ts";

// Turning what a caller said (or keyed) into a typed value, without a model.

const SMALL: Record<string, number> = {
  zero: 0, oh: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const YES = ["yes", "yeah", "yep", "yup", "sure", "correct", "right", "affirmative", "of course", "certainly", "absolutely", "ok", "okay", "please do", "that's right", "i do"];
const NO = ["no", "nope", "nah", "not really", "negative", "incorrect", "wrong", "don't", "do not", "i don't"];
const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

export type SlotValue = string | number | boolean;

export function normalise(text: string): string {
  // A full stop ends a word ("goodbye." from a recogniser that punctuates); one inside stays (3.5, a.b@c.com).
  return text.toLowerCase().replace(/[’']/g, "'").replace(/[^a-z0-9@.'+\-\s]/g, " ").replace(/\.(?![a-z0-9])/g, " ").replace(/\s+/g, " ").trim();
}

/** Whole-word, case-insensitive containment of a phrase. */
export function containsPhrase(text: string, phrase: string): boolean {
  const haystack = ` ${normalise(text)} `;
  return haystack.includes(` ${normalise(phrase)} `);
}

/** Spoken or written number: "42", "forty two", "three point five", "one hundred and five". */
export function parseNumber(text: string): number | null {
  const digits = /-?\d+(?:[.,]\d+)?/.exec(text);
  if (digits) return Number(digits[0].replace(",", "."));
  const words = normalise(text).replace(/-/g, " ").split(" ");
  let total = 0;
  let current = 0;
  let seen = false;
  for (const word of words) {
    if (word in SMALL) current += SMALL[word];
    else if (word in TENS) current += TENS[word];
    else if (word === "hundred") current = (current || 1) * 100;
    else if (word === "thousand") {
      total += (current || 1) * 1000;
      current = 0;
    } else if (word === "and" && seen) continue;
    else if (seen) break;
    else continue;
    seen = true;
  }
  return seen ? total + current : null;
}

/** Digits keyed or spoken one by one ("four two one", "4 2 1"), optionally of an exact length. */
export function parseDigits(text: string, length?: number): string | null {
  let out = "";
  for (const token of normalise(text).replace(/-/g, " ").split(" ")) {
    if (/^\d+$/.test(token)) out += token;
    else if (token in SMALL && SMALL[token] < 10) out += String(SMALL[token]);
    else if (token === "double" || token === "triple") continue;
  }
  if (!out) return null;
  if (length !== undefined && out.length !== length) return null;
  return out;
}

export function parseBoolean(text: string): boolean | null {
  const said = normalise(text);
  // "no" wins over "yes" when both appear ("yes, no I mean no") only if it comes last.
  const lastYes = Math.max(...YES.map((w) => lastIndexOfPhrase(said, w)));
  const lastNo = Math.max(...NO.map((w) => lastIndexOfPhrase(said, w)));
  if (lastYes < 0 && lastNo < 0) return null;
  return lastYes > lastNo;
}

function lastIndexOfPhrase(text: string, phrase: string): number {
  const index = ` ${text} `.lastIndexOf(` ${phrase} `);
  return index;
}

export function parseEnum(text: string, options: string[]): string | null {
  const said = normalise(text);
  const exact = options.find((option) => normalise(option) === said);
  if (exact) return exact;
  const contained = options.filter((option) => containsPhrase(said, option));
  if (contained.length === 1) return contained[0];
  if (contained.length > 1) return contained.sort((a, b) => b.length - a.length)[0]; // the most specific
  return null;
}

/** "john dot smith at example dot com" or a written address. */
export function parseEmail(text: string): string | null {
  const spoken = normalise(text)
    .replace(/\s+at\s+/g, "@")
    .replace(/\s+dot\s+/g, ".")
    .replace(/\s+underscore\s+/g, "_")
    .replace(/\s+dash\s+/g, "-");
  const match = /[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}/.exec(spoken.replace(/\s+/g, " "));
  return match ? match[0] : null;
}

/** A calendar date as YYYY-MM-DD: ISO, "today/tomorrow", weekdays, "march 3rd", "3rd of march". */
export function parseDate(text: string, now: Date): string | null {
  const said = normalise(text);
  const iso = /(\d{4})-(\d{2})-(\d{2})/.exec(said);
  if (iso) return iso[0];
  const day = (offset: number) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + offset)).toISOString().slice(0, 10);
  if (containsPhrase(said, "today")) return day(0);
  if (containsPhrase(said, "day after tomorrow")) return day(2);
  if (containsPhrase(said, "tomorrow")) return day(1);
  const weekday = WEEKDAYS.findIndex((w) => containsPhrase(said, w));
  if (weekday >= 0) {
    const ahead = (weekday - now.getUTCDay() + 7) % 7 || 7;
    return day(ahead);
  }
  const month = MONTHS.findIndex((m) => containsPhrase(said, m));
  if (month >= 0) {
    const rest = said.replace(MONTHS[month], " ");
    const dayOfMonth = parseNumber(rest.replace(/(\d+)(st|nd|rd|th)/, "$1").replace(/\bfirst\b/, "1").replace(/\bsecond\b/, "2").replace(/\bthird\b/, "3"));
    if (dayOfMonth && dayOfMonth >= 1 && dayOfMonth <= 31) {
      let year = now.getUTCFullYear();
      const candidate = Date.UTC(year, month, dayOfMonth);
      if (candidate < Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate())) year++;
      return new Date(Date.UTC(year, month, dayOfMonth)).toISOString().slice(0, 10);
    }
  }
  return null;
}

/** Strips the usual lead-ins so "my name is Ada Lovelace" gives "Ada Lovelace". */
export function parseString(text: string): string | null {
  const value = text
    .trim()
    .replace(/^(it's|it is|my name is|i am|i'm|this is|call me|the answer is|that would be|that's)\s+/i, "")
    .replace(/[.!?]+$/, "")
    .trim();
  return value || null;
}

export function parseSlot(slot: SlotDefinition, input: { text?: string; digits?: string }, now: Date): SlotValue | null {
  const text = input.text ?? "";
  switch (slot.type) {
    case "digits":
      return parseDigits(input.digits ?? text, slot.length);
    case "number":
      return input.digits ? Number(input.digits) : parseNumber(text);
    case "boolean":
      if (input.digits === "1") return true;
      if (input.digits === "2") return false;
      return parseBoolean(text);
    case "enum":
      if (input.digits && slot.options) return slot.options[Number(input.digits) - 1] ?? null; // "press 1 for…"
      return parseEnum(text, slot.options ?? []);
    case "email":
      return parseEmail(text);
    case "date":
      return parseDate(text, now);
    default:
      return parseString(text);
  }
}
