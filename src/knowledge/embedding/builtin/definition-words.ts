// Bundle-time selection of each concept's definition words ("refund: money that is refunded…" →
// money, refunded): the words that let a concept meet texts that describe it instead of naming it.
import { STOPWORDS } from "./stopwords.ts";

/** Definition words kept per concept, and the most definitions a word may appear in to be kept. */
const WORDS_PER_DEFINITION = 5;
// Words found in very many definitions ("used", "relating", "especially") say nothing distinctive.
const MAX_DEFINITIONS_PER_WORD = 800;
const WORD = /[a-z]+/g;

/** Line i lists definition i's kept words as base-36 indices into one shared vocabulary. */
export function encodeDefinitionWords(definitions: string[]): { definitionVocabulary: string; definitions: string } {
  const frequency = new Map<string, number>();
  const wordLists = definitions.map((definition) => {
    const words: string[] = [];
    for (const word of definition.toLowerCase().match(WORD) ?? []) {
      if (word.length > 2 && !STOPWORDS.has(word) && !words.includes(word)) words.push(word);
    }
    for (const word of words) frequency.set(word, (frequency.get(word) ?? 0) + 1);
    return words;
  });

  const kept = wordLists.map((words) => words.filter((word) => frequency.get(word)! <= MAX_DEFINITIONS_PER_WORD).slice(0, WORDS_PER_DEFINITION));
  // Frequent words first, so the most used indices are the shortest.
  const vocabulary = [...new Set(kept.flat())].sort((a, b) => frequency.get(b)! - frequency.get(a)! || (a < b ? -1 : 1));
  const index = new Map(vocabulary.map((word, i) => [word, i.toString(36)]));
  return {
    definitionVocabulary: vocabulary.join(" "),
    definitions: kept.map((words) => words.map((word) => index.get(word)).join(",")).join("\n"),
  };
}
