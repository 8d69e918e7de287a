// Text → one L2-normalised vector: sublinear term frequency over tokens (and WordNet collocations such
// as "credit card" or "log in"), each token adding its hashed features.
import { hashText, signedBucket } from "./feature-hashing.ts";
import { DEFAULT_WEIGHTS, type FeatureSwitches, type FeatureWeights, TokenFeatureExtractor } from "./token-features.ts";
import { isStopword } from "./stopwords.ts";
import { tokenise } from "./tokeniser.ts";

export type EmbedFunction = (texts: string[]) => Float32Array[];

export const ALL_FEATURES: FeatureSwitches = { lemmas: true, charNgrams: true, concepts: true, stopwords: true };

const LATIN_WORD = /^[a-z]+$/;
// Text with no tokens at all still gets a unit vector (a fixed one) so cosine never divides by zero.
const EMPTY_TEXT_HASH = hashText("\u0000empty", 0);

export function createEmbedder(dimension: number, switches: FeatureSwitches = ALL_FEATURES, weights: FeatureWeights = DEFAULT_WEIGHTS): EmbedFunction {
  const extractor = new TokenFeatureExtractor(dimension, switches, weights);
  const collocations = new Map<string, boolean>();

  const isCollocation = (joined: string) => {
    let known = collocations.get(joined);
    if (known === undefined) {
      known = extractor.collocationCandidates(joined).length > 0;
      if (collocations.size >= 50_000) collocations.clear();
      collocations.set(joined, known);
    }
    return known;
  };

  const embedOne = (text: string): Float32Array => {
    const tokens = tokenise(text);
    const counts = new Map<string, number>();
    const count = (term: string) => counts.set(term, (counts.get(term) ?? 0) + 1);
    for (let i = 0; i < tokens.length; i++) {
      count(tokens[i]);
      const next = tokens[i + 1];
      if (switches.concepts && next !== undefined && !isStopword(tokens[i]) && LATIN_WORD.test(tokens[i]) && LATIN_WORD.test(next)) {
        const joined = `${tokens[i]}_${next}`;
        if (isCollocation(joined)) count(joined);
      }
    }

    const vector = new Float32Array(dimension);
    for (const [term, occurrences] of counts) {
      const { indices, values } = extractor.featuresOf(term);
      const tf = 1 + Math.log(occurrences);
      for (let i = 0; i < indices.length; i++) vector[indices[i]] += tf * values[i];
    }

    let norm = 0;
    for (let i = 0; i < dimension; i++) norm += vector[i] * vector[i];
    if (norm === 0) {
      const bucket = signedBucket(EMPTY_TEXT_HASH, dimension);
      vector[Math.abs(bucket) - 1] = Math.sign(bucket);
      return vector;
    }
    const scale = 1 / Math.sqrt(norm);
    for (let i = 0; i < dimension; i++) vector[i] *= scale;
    return vector;
  };

  return (texts) => texts.map(embedOne);
}
