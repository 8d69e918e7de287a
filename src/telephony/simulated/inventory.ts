// The simulated carrier's number inventory: a fictional range, so nothing real is ever dialled.
// North American 555-01XX numbers are reserved for fiction; every area code 200–999 has 100 of them.
import { ApiError, invalid } from "../../http/errors.ts";
import type { NumberInventory } from "../types.ts";

export const FICTIONAL = /^\+1([2-9]\d\d)5550(1\d\d)$/;

export function isFictional(number: string): boolean {
  return FICTIONAL.test(number);
}

/** Numbers for sale in an area code (or across a few), skipping those already taken. */
export function availableNumbers(options: { areaCode?: string; contains?: string; limit: number }, taken: (number: string) => boolean): string[] {
  const areas = options.areaCode ? [options.areaCode] : ["415", "212", "312", "617", "206", "512", "303", "202"];
  const out: string[] = [];
  for (const area of areas) {
    for (let n = 100; n <= 199 && out.length < options.limit; n++) {
      const number = `+1${area}5550${n}`;
      if (options.contains && !number.includes(options.contains)) continue;
      if (!taken(number)) out.push(number);
    }
    if (out.length >= options.limit) break;
  }
  return out;
}

/** The fictional range as a carrier's inventory: nothing to call out to, any number may be brought. */
export const simulatedNumbers: NumberInventory = {
  async search(query, taken) {
    return availableNumbers(query, taken).map((number) => ({ number, region: `US ${number.slice(2, 5)}` }));
  },
  async buy(request, taken) {
    if (request.number) {
      if (!isFictional(request.number)) throw invalid("number", "the simulated carrier sells only numbers of the fictional 555-01XX range (e.g. +14155550123)");
      return request.number;
    }
    const [number] = availableNumbers({ areaCode: request.areaCode, limit: 1 }, taken);
    if (!number) throw new ApiError("number_unavailable", `no numbers left in area code ${request.areaCode}`);
    return number;
  },
  async adopt() {},
  async release() {},
};
