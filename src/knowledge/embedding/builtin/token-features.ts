// What one token contributes to an embedding, as signed hashed features: its base form, its character
// n-grams, and the WordNet concepts it may stand for (weighted by how often each sense is used).
import { type LemmaCandidate, lemmaCandidates, lemmatise } from "./lemmatiser.ts";
import { type Sense, definitionWordsOf, relationsOf, sensesOf } from "./lexicon.ts";
import { hashNumber, hashText, signedBucket } from "./feature-hashing.ts";
import { isStopword } from "./stopwords.ts";
import { isUnsegmented } from "./tokeniser.ts";

/** Which feature families are on; everything on is the shipped embedder, the rest are ablations. */
export interface FeatureSwitches {
  /** WordNet base forms ("prices" → "price") instead of surface words, plus the frequency down-weighting. */
  lemmas: boolean;
  /** Character 3–5-grams within words, for typos and unknown morphology. */
  charNgrams: boolean;
  /** WordNet concepts (synsets), their hypernyms and derivationally related concepts. */
  concepts: boolean;
  /** Near-zero weight for function words instead of full weight. */
  stopwords: boolean;
}

/** A token's features: parallel arrays of dimension indices and signed weights. */
export interface TokenFeatures {
  indices: Uint16Array;
  values: Float32Array;
}

// Relative weights, chosen so one matching base form outweighs a matching concept, which outweighs
// n-gram overlap; rationale and measurements in scripts/bench/embedder-quality.ts.
const T = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const WORD_WEIGHT = 1;
const NGRAM_BLOCK_WEIGHT = T("NG", 0.5);
const CONCEPT_WEIGHT = T("CW", 1);
const HYPERNYM_SHARE = T("HS", 0.5);
const HYPERNYM_LEVELS = T("HL", 2);
const RELATED_SHARE = T("RS", 0.5);
const DEFINITION_SHARE = T("DS", 0.5);
const STOPWORD_WEIGHT = 0.1;
const PROBES = T("PR", 1);
const NUMBER_WEIGHT = 0.5;
// Token weight 1 / (1 + slope · ln(1 + corpus count)): frequent words ("get", "time") count less.
const FREQUENCY_SLOPE = T("FS", 0.1);
const NGRAM_SIZES = [3, 4, 5];

const SEED_WORD = 0x1b873593;
const SEED_NGRAM = 0x5bd1e995;
const SEED_CONCEPT = 0x27d4eb2f;

const DIGITS = /^[0-9]+$/;
const CACHE_LIMIT = 50_000;
const CACHE_KEY_LIMIT = 48;

export class TokenFeatureExtractor {
  private readonly cache = new Map<string, TokenFeatures>();

  constructor(
    private readonly dimension: number,
    private readonly switches: FeatureSwitches,
  ) {}

  /** Features of a token or of an `a_b` collocation; memoised because vocabularies are small. */
  featuresOf(token: string): TokenFeatures {
    const cached = this.cache.get(token);
    if (cached) return cached;
    const features = this.extract(token);
    if (token.length <= CACHE_KEY_LIMIT) {
      // Dropping everything at the limit keeps memory bounded without any bookkeeping per hit.
      if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
      this.cache.set(token, features);
    }
    return features;
  }

  /** The WordNet readings of a collocation ("credit_cards" → credit_card), or none. */
  collocationCandidates(joined: string): LemmaCandidate[] {
    return this.switches.concepts ? lemmaCandidates(joined) : [];
  }

  private extract(token: string): TokenFeatures {
    const sum = new Map<number, number>();
    const add = (hash: number, weight: number) => {
      const each = weight / Math.sqrt(PROBES);
      for (let probe = 0; probe < PROBES; probe++) {
        const bucket = signedBucket(probe === 0 ? hash : hashNumber(hash, probe), this.dimension);
        const index = Math.abs(bucket) - 1;
        sum.set(index, (sum.get(index) ?? 0) + (bucket > 0 ? each : -each));
      }
    };

    if (isUnsegmented(token) || DIGITS.test(token)) {
      add(hashText(token, SEED_WORD), DIGITS.test(token) ? NUMBER_WEIGHT : WORD_WEIGHT);
    } else if (this.switches.stopwords && isStopword(token)) {
      add(hashText(token, SEED_WORD), STOPWORD_WEIGHT);
    } else {
      const { lemmas, charNgrams, concepts } = this.switches;
      const candidates = lemmas || concepts ? lemmaCandidates(token) : [];
      const senses = candidates.flatMap((candidate) => sensesOf(candidate.pos, candidate.lemma));
      const frequency = senses.reduce((total, sense) => total + sense.weight, 0);
      const weight = lemmas ? 1 / (1 + FREQUENCY_SLOPE * Math.log1p(frequency)) : 1;

      add(hashText(lemmas ? lemmatise(token, candidates) : token, SEED_WORD), WORD_WEIGHT * weight);
      if (charNgrams && !token.includes("_")) this.addNgrams(token, NGRAM_BLOCK_WEIGHT * weight, add);
      if (concepts && frequency > 0) addConcepts(senses, frequency, CONCEPT_WEIGHT * weight, add);
    }

    const indices = new Uint16Array(sum.size);
    const values = new Float32Array(sum.size);
    let i = 0;
    for (const [index, value] of sum) {
      indices[i] = index;
      values[i++] = value;
    }
    return { indices, values };
  }

  private addNgrams(token: string, blockWeight: number, add: (hash: number, weight: number) => void): void {
    const padded = `<${token}>`;
    let count = 0;
    for (const size of NGRAM_SIZES) count += Math.max(0, padded.length - size + 1);
    if (count === 0) return;
    // Scaled so the whole block has norm ≈ blockWeight whatever the word's length.
    const each = blockWeight / Math.sqrt(count);
    for (const size of NGRAM_SIZES) {
      for (let start = 0; start + size <= padded.length; start++) add(hashText(padded, SEED_NGRAM + size, start, start + size), each);
    }
  }
}

const definitionWords = new Map<string, { hash: number; weight: number }>();

/** A definition word lands where that word itself would, down-weighted like any frequent word. */
function definitionWordFeature(word: string): { hash: number; weight: number } {
  let feature = definitionWords.get(word);
  if (!feature) {
    const candidates = lemmaCandidates(word);
    const frequency = candidates.reduce((total, c) => sensesOf(c.pos, c.lemma).reduce((sum, sense) => sum + sense.weight, total), 0);
    feature = { hash: hashText(lemmatise(word, candidates), SEED_WORD), weight: 1 / (1 + FREQUENCY_SLOPE * Math.log1p(frequency)) };
    definitionWords.set(word, feature);
  }
  return feature;
}

/**
 * Spreads `blockWeight` over the token's senses by their share of usage, so a word's dominant sense
 * carries it and rare senses (polysemy) barely register. Each concept passes part of its weight up two
 * levels of hypernyms and to its related forms, so "fee" meets "charge" and "expiry" meets "expire".
 */
function addConcepts(senses: Sense[], frequency: number, blockWeight: number, add: (hash: number, weight: number) => void): void {
  const spread = (concept: number, weight: number, levelsUp: number) => {
    add(hashNumber(concept, SEED_CONCEPT), weight);
    const { hypernyms } = relationsOf(concept);
    if (levelsUp === 0 || hypernyms.length === 0) return;
    // Divided by √n so the hypernym block has the same norm however many parents a concept has.
    const each = (weight * HYPERNYM_SHARE) / Math.sqrt(hypernyms.length);
    for (const hypernym of hypernyms) spread(hypernym, each, levelsUp - 1);
  };
  for (const sense of senses) {
    const share = (blockWeight * sense.weight) / frequency;
    spread(sense.concept, share, HYPERNYM_LEVELS);
    const definition = definitionWordsOf(sense.concept);
    for (const word of definition) {
      const { hash, weight } = definitionWordFeature(word);
      add(hash, (share * DEFINITION_SHARE * weight) / Math.sqrt(definition.length));
    }
    const { related } = relationsOf(sense.concept);
    const each = (share * RELATED_SHARE) / Math.sqrt(related.length);
    for (const form of related) add(hashNumber(form, SEED_CONCEPT), each);
  }
}
