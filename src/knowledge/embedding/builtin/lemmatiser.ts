// WordNet's "morphy": irregular forms from the exception lists, then suffix detachment rules, keeping
// only candidates that WordNet actually lists, so "prices" → "price" but "bus" stays "bus".
import { exceptionBases, isLemma } from "./lexicon.ts";
import { type PartOfSpeech, PARTS_OF_SPEECH } from "./lexicon-format.ts";

const DETACHMENT_RULES: Record<PartOfSpeech, readonly (readonly [string, string])[]> = {
  n: [["s", ""], ["ses", "s"], ["ves", "f"], ["xes", "x"], ["zes", "z"], ["ches", "ch"], ["shes", "sh"], ["men", "man"], ["ies", "y"]],
  v: [["s", ""], ["ies", "y"], ["es", "e"], ["es", ""], ["ed", "e"], ["ed", ""], ["ing", "e"], ["ing", ""]],
  a: [["er", ""], ["est", ""], ["er", "e"], ["est", "e"]],
  r: [],
};

export interface LemmaCandidate {
  pos: PartOfSpeech;
  lemma: string;
}

/** Base forms of `word` listed by WordNet under `pos`: the word itself first, then irregular or detached forms. */
export function morphy(word: string, pos: PartOfSpeech): string[] {
  const found: string[] = [];
  const keep = (form: string) => {
    if (form.length > 0 && !found.includes(form) && isLemma(pos, form)) found.push(form);
  };
  keep(word);
  const irregular = exceptionBases(pos, word);
  if (irregular) {
    for (const base of irregular) keep(base);
    return found;
  }
  for (const [suffix, ending] of DETACHMENT_RULES[pos]) {
    if (word.length > suffix.length && word.endsWith(suffix)) keep(word.slice(0, word.length - suffix.length) + ending);
  }
  return found;
}

/** Every (part of speech, base form) WordNet offers for a lower-case word or `a_b` collocation. */
export function lemmaCandidates(word: string): LemmaCandidate[] {
  const candidates: LemmaCandidate[] = [];
  for (const pos of PARTS_OF_SPEECH) for (const lemma of morphy(word, pos)) candidates.push({ pos, lemma });
  return candidates;
}

/**
 * The single base form used as the word feature: an inflection-stripped form when WordNet offers one
 * ("running" → "run", "prices" → "price"), the word itself when it is already a base form, and for
 * words WordNet does not know a cautious plural strip ("apps" → "app").
 */
export function lemmatise(word: string, candidates: LemmaCandidate[] = lemmaCandidates(word)): string {
  if (candidates.length === 0) return stripUnknownPlural(word);
  return candidates.find((candidate) => candidate.lemma !== word)?.lemma ?? word;
}

function stripUnknownPlural(word: string): string {
  if (word.length < 4 || !/^[a-z]+$/.test(word) || /(ss|us|is)$/.test(word)) return word;
  if (word.endsWith("ies")) return word.slice(0, -3) + "y";
  return word.endsWith("s") ? word.slice(0, -1) : word;
}
