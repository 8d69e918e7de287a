// Splits text into lower-case word tokens. Scripts written without spaces (Chinese, Japanese, Thai…)
// come out as whole runs; the feature extractor turns those into character n-grams instead of words.

const WORD_RUN = /[\p{L}\p{M}\p{N}]+/gu;
const UNSEGMENTED_SCRIPT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;
const ACCENTED_LATIN = /[\u00c0-\u024f]/;
const LATIN_ACCENTS = /[\u0300-\u036f]/g;

export function tokenise(text: string): string[] {
  const tokens = text.normalize("NFKC").toLowerCase().match(WORD_RUN) ?? [];
  // Accents are folded only on Latin letters ("café" → "cafe"); elsewhere marks are vowels that matter.
  return tokens.map((token) => (ACCENTED_LATIN.test(token) ? token.normalize("NFD").replace(LATIN_ACCENTS, "") : token));
}

/** Whether a token belongs to a script that does not separate words with spaces. */
export function isUnsegmented(token: string): boolean {
  return UNSEGMENTED_SCRIPT.test(token);
}
