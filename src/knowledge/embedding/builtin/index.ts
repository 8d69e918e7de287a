// The built-in offline text embedder for knowledge-base search: lexical features (WordNet base forms,
// character n-grams, WordNet concepts) hashed into a fixed-size vector. No model files, no network.
import { createEmbedder } from "./embedder.ts";

/** Stored with each index; bump whenever the output for the same text changes. */
export const BUILTIN_EMBEDDER_ID = "builtin-lexical-v1";
export const BUILTIN_DIMENSION = 384;

const embedBuiltin = createEmbedder(BUILTIN_DIMENSION);

/** One L2-normalised vector of BUILTIN_DIMENSION per text; synchronous and deterministic. */
export function embedTexts(texts: string[]): Float32Array[] {
  return embedBuiltin(texts);
}
