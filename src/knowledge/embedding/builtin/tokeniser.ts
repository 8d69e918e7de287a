// Splits text into lower-case word tokens. Runs of scripts written without spaces (Chinese, Japanese,
// Thai…) become overlapping character pairs instead, the usual stand-in for words there.

const WORD_RUN = /[\p{L}\p{M}\p{N}]+/gu;
const UNSEGMENTED_SCRIPT = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}]/u;
const ACCENTED_LATIN = /[\u00c0-\u024f]/;
const LATIN_ACCENTS = /[\u0300-\u036f]/g;

export function tokenise(text: string): string[] {
  const tokens: string[] = [];
  for (const run of text.normalize("NFKC").toLowerCase().match(WORD_RUN) ?? []) {
    if (isUnsegmented(run)) {
      const chars = Array.from(run);
      if (chars.length === 1) tokens.push(run);
      for (let i = 0; i + 1 < chars.length; i++) tokens.push(chars[i] + chars[i + 1]);
    } else {
      // Accents are folded only on Latin letters ("café" → "cafe"); elsewhere marks are vowels that matter.
      tokens.push(ACCENTED_LATIN.test(run) ? run.normalize("NFD").replace(LATIN_ACCENTS, "") : run);
    }
  }
  return tokens;
}

/** Whether a token belongs to a script that does not separate words with spaces. */
export function isUnsegmented(token: string): boolean {
  return UNSEGMENTED_SCRIPT.test(token);
}
