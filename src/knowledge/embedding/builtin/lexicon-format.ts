// The compact WordNet lexicon's shape and weight encoding, shared by the bundle-time builder
// (lexicon.macro.ts) and the runtime reader (lexicon.ts).

/** Parts of speech as WordNet abbreviates them (satellite adjectives are folded into "a"). */
export type PartOfSpeech = "n" | "v" | "a" | "r";
export const PARTS_OF_SPEECH: readonly PartOfSpeech[] = ["n", "v", "a", "r"];

/**
 * Every field is one string, parsed lazily on first use:
 * - senses[pos]: lines `lemma<space>senses`; a sense is a base-36 concept (synset) id ended by one
 *   upper-case weight letter, most frequent sense first;
 * - relations: line i lists concept i's hypernyms, then `|`, then its related concepts (derivations,
 *   similar-to, pertainyms, verb groups, also-see, attributes), as comma-separated base-36 ids;
 * - exceptions[pos]: lines `inflected base [base…]` from WordNet's *.exc lists.
 */
export interface CompactLexicon {
  senses: Record<PartOfSpeech, string>;
  relations: string;
  exceptions: Record<PartOfSpeech, string>;
  /** Space-separated words that `definitions` refers to by base-36 index. */
  definitionVocabulary: string;
  /** Line i: concept i's distinctive definition words as comma-separated vocabulary indices. */
  definitions: string;
}

// A weight letter stores log2(weight) in half-doubling steps: A … Z covers 2^-4 … 2^8.5.
const STEPS_PER_DOUBLING = 2;
const LOWEST_STEP = -8;

export function encodeSenseWeight(weight: number): string {
  const step = Math.round(Math.log2(weight) * STEPS_PER_DOUBLING) - LOWEST_STEP;
  return String.fromCharCode(65 + Math.min(25, Math.max(0, step)));
}

export function decodeSenseWeight(letterCode: number): number {
  return 2 ** ((letterCode - 65 + LOWEST_STEP) / STEPS_PER_DOUBLING);
}
