// Chunk sizes are in approximate tokens: ~4 characters per token is what BPE tokenizers average on English
// prose. It needs no tokenizer, is the same for every embedder, and, being proportional to length, the
// size of any slice is known in O(1) while packing. It undercounts CJK text and overcounts whitespace.

export const CHARS_PER_TOKEN = 4;

export function estimateTokens(text: string): number {
  return spanTokens(0, text.length);
}

/** The estimate for text.slice(start, end). */
export function spanTokens(start: number, end: number): number {
  return Math.ceil((end - start) / CHARS_PER_TOKEN);
}
