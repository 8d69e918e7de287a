// What WordNet says about one lower-case word, memoised for the whole process: the lexicon never
// changes, and the same few thousand words come back in every text.
import { type LemmaCandidate, lemmaCandidates, lemmatise } from "./lemmatiser.ts";
import { type Sense, sensesOf } from "./lexicon.ts";

export interface WordAnalysis {
  candidates: LemmaCandidate[];
  /** The base form used as the word's own feature. */
  lemma: string;
  /** Kept senses over every reading, with their usage weights. */
  senses: Sense[];
  /** Sum of the usage weights: roughly how often the word occurs in the sense-tagged corpus. */
  frequency: number;
}

const CACHE_LIMIT = 100_000;
const analyses = new Map<string, WordAnalysis>();

export function analyseWord(word: string): WordAnalysis {
  let analysis = analyses.get(word);
  if (!analysis) {
    const candidates = lemmaCandidates(word);
    const senses = candidates.flatMap((candidate) => sensesOf(candidate.pos, candidate.lemma));
    let frequency = 0;
    for (const sense of senses) frequency += sense.weight;
    analysis = { candidates, lemma: lemmatise(word, candidates), senses, frequency };
    // Dropping everything at the limit keeps memory bounded without bookkeeping on every hit.
    if (analyses.size >= CACHE_LIMIT) analyses.clear();
    analyses.set(word, analysis);
  }
  return analysis;
}
