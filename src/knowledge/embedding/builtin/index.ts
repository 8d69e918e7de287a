// The built-in offline text embedder for knowledge-base search: lexical features (WordNet base forms,
// character n-grams, WordNet concepts with their synonyms, hypernyms and definitions) hashed into a
// fixed-size vector. No model files, no network; the WordNet data is inlined at bundle time.
import { createEmbedder } from "./embedder.ts";
import { BUILTIN_DIMENSION } from "./identity.ts";

// Defined in identity.ts so callers can name the vector space without loading WordNet.
export { BUILTIN_DIMENSION, BUILTIN_EMBEDDER_ID } from "./identity.ts";

const embedBuiltin = createEmbedder(BUILTIN_DIMENSION);

/** One L2-normalised vector of BUILTIN_DIMENSION per text; synchronous and deterministic. */
export function embedTexts(texts: string[]): Float32Array[] {
  return embedBuiltin(texts);
}
