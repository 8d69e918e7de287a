// The content words of a text as base forms, used to tell whether two texts share any word at all
// (e.g. to keep a paraphrase benchmark honest). Every reading counts: "opening" gives opening and open.
import { lemmaCandidates, lemmatise } from "./lemmatiser.ts";
import { isStopword } from "./stopwords.ts";
import { tokenise } from "./tokeniser.ts";

export function contentLemmas(text: string): Set<string> {
  const lemmas = new Set<string>();
  for (const token of tokenise(text)) {
    if (isStopword(token)) continue;
    const candidates = lemmaCandidates(token);
    lemmas.add(token);
    lemmas.add(lemmatise(token, candidates));
    for (const candidate of candidates) lemmas.add(candidate.lemma);
  }
  return lemmas;
}
