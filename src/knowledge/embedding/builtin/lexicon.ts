// The WordNet lexicon, inlined at bundle time and parsed lazily: nothing is split until the first lookup,
// and each lemma's senses are decoded only when that lemma is asked for.
import { buildLexicon } from "./lexicon.macro.ts" with { type: "macro" };
import { type CompactLexicon, type PartOfSpeech, PARTS_OF_SPEECH, decodeSenseWeight } from "./lexicon-format.ts";

const COMPACT: CompactLexicon = buildLexicon();

/** One WordNet sense of a lemma: a concept (synset) id and its usage weight (corpus count, or rank decay). */
export interface Sense {
  concept: number;
  weight: number;
}

export interface ConceptRelations {
  hypernyms: number[];
  /** Derivationally related forms, similar-to adjectives, pertainyms, verb groups, also-see, attributes. */
  related: number[];
}

let encodedSenses: Record<PartOfSpeech, Map<string, string>> | undefined;
let exceptionLists: Record<PartOfSpeech, Map<string, string[]>> | undefined;
let relationLines: string[] | undefined;

function sensesTable(pos: PartOfSpeech): Map<string, string> {
  if (!encodedSenses) {
    encodedSenses = {} as Record<PartOfSpeech, Map<string, string>>;
    for (const part of PARTS_OF_SPEECH) {
      const table = new Map<string, string>();
      for (const line of COMPACT.senses[part].split("\n")) {
        const space = line.indexOf(" ");
        table.set(line.slice(0, space), line.slice(space + 1));
      }
      encodedSenses[part] = table;
    }
  }
  return encodedSenses[pos];
}

/** Whether WordNet lists `lemma` (lower case, spaces as underscores) under this part of speech. */
export function isLemma(pos: PartOfSpeech, lemma: string): boolean {
  return sensesTable(pos).has(lemma);
}

/** The lemma's kept senses, most frequent first; empty when WordNet does not list it. */
export function sensesOf(pos: PartOfSpeech, lemma: string): Sense[] {
  const encoded = sensesTable(pos).get(lemma);
  if (encoded === undefined) return [];
  const senses: Sense[] = [];
  let start = 0;
  for (let i = 0; i < encoded.length; i++) {
    const code = encoded.charCodeAt(i);
    if (code >= 65 && code <= 90) {
      senses.push({ concept: parseInt(encoded.slice(start, i), 36), weight: decodeSenseWeight(code) });
      start = i + 1;
    }
  }
  return senses;
}

/** WordNet's irregular inflections: "went" → ["go"], "children" → ["child"]. */
export function exceptionBases(pos: PartOfSpeech, form: string): string[] | undefined {
  if (!exceptionLists) {
    exceptionLists = {} as Record<PartOfSpeech, Map<string, string[]>>;
    for (const part of PARTS_OF_SPEECH) {
      const table = new Map<string, string[]>();
      for (const line of COMPACT.exceptions[part].split("\n")) {
        const [inflected, ...bases] = line.split(" ");
        table.set(inflected, bases);
      }
      exceptionLists[part] = table;
    }
  }
  return exceptionLists[pos].get(form);
}

let definitionVocabulary: string[] | undefined;
let definitionLines: string[] | undefined;
let memberLists: string[][] | undefined;
// Decoded per concept on first use; the same few thousand concepts come back in every text.
const decodedDefinitions: string[][] = [];
const decodedRelations: ConceptRelations[] = [];

/** Distinctive words of a concept's definition, as written there (not lemmatised). */
export function definitionWordsOf(concept: number): string[] {
  let words = decodedDefinitions[concept];
  if (words === undefined) {
    definitionVocabulary ??= COMPACT.definitionVocabulary.split(" ");
    definitionLines ??= COMPACT.definitions.split("\n");
    const line = definitionLines[concept];
    words = line ? line.split(",").map((id) => definitionVocabulary![parseInt(id, 36)]) : NO_WORDS;
    decodedDefinitions[concept] = words;
  }
  return words;
}

/**
 * The lemmas that name a concept among their kept senses: its synonyms ("price", "cost"). Built on
 * first use by inverting the sense tables, which is cheaper than shipping the lists.
 */
export function membersOf(concept: number): string[] {
  if (!memberLists) {
    const lists: string[][] = [];
    for (const pos of PARTS_OF_SPEECH) {
      for (const [lemma, encoded] of sensesTable(pos)) {
        // Reads the base-36 ids straight from the encoded senses: this runs over every lemma once.
        let id = 0;
        for (let i = 0; i < encoded.length; i++) {
          const code = encoded.charCodeAt(i);
          if (code >= 65 && code <= 90) {
            const members = (lists[id] ??= []);
            if (members[members.length - 1] !== lemma) members.push(lemma);
            id = 0;
          } else id = id * 36 + (code <= 57 ? code - 48 : code - 87);
        }
      }
    }
    memberLists = lists;
  }
  return memberLists[concept] ?? NO_WORDS;
}

const NO_WORDS: string[] = [];
const NO_RELATIONS: ConceptRelations = { hypernyms: [], related: [] };
const parseIds = (list: string) => (list.length === 0 ? [] : list.split(",").map((id) => parseInt(id, 36)));

export function relationsOf(concept: number): ConceptRelations {
  let relations = decodedRelations[concept];
  if (relations === undefined) {
    relationLines ??= COMPACT.relations.split("\n");
    const line = relationLines[concept];
    const bar = line === undefined ? -1 : line.indexOf("|");
    relations = bar < 0 ? NO_RELATIONS : { hypernyms: parseIds(line.slice(0, bar)), related: parseIds(line.slice(bar + 1)) };
    decodedRelations[concept] = relations;
  }
  return relations;
}
