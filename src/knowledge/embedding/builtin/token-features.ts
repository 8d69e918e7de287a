// What one token contributes to an embedding, as signed hashed features: its base form, its character
// n-grams, and the WordNet concepts it may stand for (weighted by how often each sense is used).
import { type LemmaCandidate, lemmaCandidates } from "./lemmatiser.ts";
import { type Sense, definitionWordsOf, membersOf, relationsOf } from "./lexicon.ts";
import { type WordAnalysis, analyseWord } from "./word-analysis.ts";
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

/**
 * How much each feature family weighs inside a token (a content token's features are then scaled to a
 * common norm); DEFAULT_WEIGHTS is what the shipped embedder uses.
 */
export interface FeatureWeights {
  /** The token's base form. */
  word: number;
  /** Norm of the token's whole character n-gram block. */
  ngrams: number;
  /** The token's WordNet block, split over its senses by usage. */
  concepts: number;
  /** Of a concept's weight, the share its hypernyms get (again for theirs, `hypernymLevels` deep). */
  hypernymShare: number;
  hypernymLevels: number;
  /** Of a sense's weight, the share its related concepts get (derivations, similar-to, verb groups…). */
  relatedShare: number;
  /** Of a concept's weight, the share its member lemmas get as words ("price" → cost, monetary_value). */
  synonymShare: number;
  /** Of a sense's weight, the share its definition words get as words ("refund" → money). */
  definitionShare: number;
  /** Whole weight of a function word, and of a number. */
  stopword: number;
  number: number;
  /** Token weight is 1 / (1 + slope · ln(1 + corpus count)): frequent words ("get", "time") count less. */
  frequencySlope: number;
  /** Dimensions each feature is spread over; more probes trade rare large collisions for many small ones. */
  probes: number;
  /** Varies every hash; 0 in production, other values measure how much collisions sway results. */
  hashSeed: number;
}

// Tuned on test/knowledge/retrieval-set.ts averaged over hash seeds; results sit on a broad plateau
// around these values (scripts/bench/embedder-quality.ts shows the effect of each family).
export const DEFAULT_WEIGHTS: FeatureWeights = {
  word: 1,
  ngrams: 0.5,
  concepts: 3,
  hypernymShare: 0.5,
  hypernymLevels: 2,
  relatedShare: 0.5,
  synonymShare: 1,
  definitionShare: 1.5,
  stopword: 0.1,
  number: 0.5,
  frequencySlope: 0.1,
  probes: 1,
  hashSeed: 0,
};

const NGRAM_SIZES = [3, 4, 5];

const SEED_WORD = 0x1b873593;
const SEED_NGRAM = 0x5bd1e995;
const SEED_CONCEPT = 0x27d4eb2f;

const DIGITS = /^[0-9]+$/;
const UNANALYSED: WordAnalysis = { candidates: [], lemma: "", senses: [], frequency: 0 };
const CACHE_LIMIT = 50_000;
const CACHE_KEY_LIMIT = 48;

export class TokenFeatureExtractor {
  private readonly cache = new Map<string, TokenFeatures>();

  private readonly namedWords = new Map<string, { hash: number; weight: number }>();
  private readonly seeds: { word: number; ngram: number; concept: number };
  private readonly scratch: Float64Array;
  private readonly touched: number[] = [];

  constructor(
    private readonly dimension: number,
    private readonly switches: FeatureSwitches,
    private readonly weights: FeatureWeights = DEFAULT_WEIGHTS,
  ) {
    this.seeds = { word: SEED_WORD ^ weights.hashSeed, ngram: SEED_NGRAM ^ weights.hashSeed, concept: SEED_CONCEPT ^ weights.hashSeed };
    this.scratch = new Float64Array(dimension);
  }

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
    // Accumulates into a dense scratch row, remembering which dimensions were touched.
    const { scratch, touched } = this;
    touched.length = 0;
    const { probes } = this.weights;
    const add = (hash: number, weight: number) => {
      const each = probes === 1 ? weight : weight / Math.sqrt(probes);
      for (let probe = 0; probe < probes; probe++) {
        const bucket = signedBucket(probe === 0 ? hash : hashNumber(hash, probe), this.dimension);
        const index = Math.abs(bucket) - 1;
        if (scratch[index] === 0) touched.push(index);
        scratch[index] += bucket > 0 ? each : -each;
      }
    };

    const { weights, seeds } = this;
    let tokenNorm = 0;
    if (isUnsegmented(token) || DIGITS.test(token)) {
      add(hashText(token, seeds.word), DIGITS.test(token) ? weights.number : weights.word);
    } else if (this.switches.stopwords && isStopword(token)) {
      add(hashText(token, seeds.word), weights.stopword);
    } else {
      const { lemmas, charNgrams, concepts } = this.switches;
      const { lemma, senses, frequency } = lemmas || concepts ? analyseWord(token) : UNANALYSED;
      tokenNorm = lemmas ? this.frequencyWeight(frequency) : 1;

      add(hashText(lemmas ? lemma : token, seeds.word), weights.word);
      if (charNgrams && !token.includes("_")) this.addNgrams(token, weights.ngrams, add);
      if (concepts && frequency > 0) this.addConcepts(senses, frequency, weights.concepts, add);
    }

    // A dimension can be touched, cancel back to exactly 0 and be touched again: keep the first mention.
    const indices = new Uint16Array(new Set(touched));
    const values = new Float32Array(indices.length);
    let squares = 0;
    for (let i = 0; i < indices.length; i++) {
      values[i] = scratch[indices[i]];
      scratch[indices[i]] = 0;
      squares += values[i] * values[i];
    }
    // Every content token gets the same norm (less for frequent words), however many WordNet features
    // it has, so a product name WordNet never heard of counts as much as a common noun.
    if (tokenNorm > 0 && squares > 0) {
      const scale = tokenNorm / Math.sqrt(squares);
      for (let i = 0; i < values.length; i++) values[i] *= scale;
    }
    return { indices, values };
  }

  private addNgrams(token: string, blockWeight: number, add: AddFeature): void {
    const padded = `<${token}>`;
    let count = 0;
    for (const size of NGRAM_SIZES) count += Math.max(0, padded.length - size + 1);
    if (count === 0) return;
    // Scaled so the whole block has norm ≈ blockWeight whatever the word's length.
    const each = blockWeight / Math.sqrt(count);
    for (const size of NGRAM_SIZES) {
      for (let start = 0; start + size <= padded.length; start++) add(hashText(padded, this.seeds.ngram + size, start, start + size), each);
    }
  }

  private frequencyWeight(frequency: number): number {
    return 1 / (1 + this.weights.frequencySlope * Math.log1p(frequency));
  }

  /**
   * Where a word named by WordNet (a synonym or a definition word) lands: on the same feature as that
   * word in running text, down-weighted like any frequent word.
   */
  private namedWordFeature(word: string): { hash: number; weight: number } {
    let feature = this.namedWords.get(word);
    if (!feature) {
      const { lemma, frequency } = analyseWord(word);
      feature = { hash: hashText(lemma, this.seeds.word), weight: this.frequencyWeight(frequency) };
      if (this.namedWords.size >= CACHE_LIMIT) this.namedWords.clear();
      this.namedWords.set(word, feature);
    }
    return feature;
  }

  private addNamedWords(words: string[], weight: number, add: AddFeature): void {
    if (words.length === 0) return;
    // Divided by √n so a long list carries no more weight than a short one.
    const each = weight / Math.sqrt(words.length);
    for (const word of words) {
      const feature = this.namedWordFeature(word);
      add(feature.hash, each * feature.weight);
    }
  }

  /**
   * Spreads `blockWeight` over the token's senses by their share of usage, so a word's dominant sense
   * carries it and rare senses (polysemy) barely register. Each concept adds its id, its synonyms and
   * definition words as words, and passes part of its weight up the hypernym chain and to its related
   * forms: "fee" meets "charge", "expiry" meets "expire", "refund" meets "money".
   */
  private addConcepts(senses: Sense[], frequency: number, blockWeight: number, add: AddFeature): void {
    const { weights } = this;
    const conceptSeed = this.seeds.concept;
    const spread = (concept: number, weight: number, levelsUp: number) => {
      add(hashNumber(concept, conceptSeed), weight);
      this.addNamedWords(membersOf(concept), weight * weights.synonymShare, add);
      const { hypernyms } = relationsOf(concept);
      if (levelsUp === 0 || hypernyms.length === 0) return;
      const each = (weight * weights.hypernymShare) / Math.sqrt(hypernyms.length);
      for (const hypernym of hypernyms) spread(hypernym, each, levelsUp - 1);
    };
    for (const sense of senses) {
      const share = (blockWeight * sense.weight) / frequency;
      spread(sense.concept, share, weights.hypernymLevels);
      this.addNamedWords(definitionWordsOf(sense.concept), share * weights.definitionShare, add);
      const { related } = relationsOf(sense.concept);
      const each = (share * weights.relatedShare) / Math.sqrt(related.length);
      for (const form of related) add(hashNumber(form, conceptSeed), each);
    }
  }
}

type AddFeature = (hash: number, weight: number) => void;
