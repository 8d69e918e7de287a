// Which built-in embedder built an index, without loading the embedder (and its WordNet data).
export const BUILTIN_EMBEDDER_ID = "builtin-lexical-v1"; // stored with each index; bump when output changes
export const BUILTIN_DIMENSION = 384;
