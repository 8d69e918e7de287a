// The simulated carrier's number inventory: a fictional range, so nothing real is ever dialled.
// North American 555-01XX numbers are reserved for fiction; every area code 200–999 has 100 of them.

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
