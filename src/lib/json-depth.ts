/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found in one pass over the text and
 * stopping at the first level too deep: a body of 50,000 `[` costs microseconds, not a parse. Brackets
 * inside strings do not count. Invalid JSON is left for the parser to report.
 */
export function jsonNestingExceeds(text: string, limit: number): boolean {
  // Each level takes one character: text this short cannot reach past the limit.
  if (text.length <= limit) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x22) {
      // A string: skip to its closing quote, stepping over escaped characters.
      for (i++; i < length; i++) {
        const inner = text.charCodeAt(i);
        if (inner === 0x5c) i++;
        else if (inner === 0x22) break;
      }
    } else if (code === 0x5b || code === 0x7b) {
      if (++depth > limit) return true;
    } else if (code === 0x5d || code === 0x7d) {
      depth--;
    }
  }
  return false;
}
