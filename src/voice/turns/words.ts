// Transcripts compared as words: a recogniser's interim and final results of the same speech differ in
// case and punctuation ("my order" / "My order?"), which must not count as the caller saying otherwise.

/** Lower case, letters, digits and apostrophes only, one space between words. */
export function normalizeWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}'\s]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

export function sameWords(a: string, b: string): boolean {
  return normalizeWords(a) === normalizeWords(b);
}
