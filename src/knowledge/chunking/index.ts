// Text → retrieval-sized chunks that follow the document's structure: sections by heading, then
// paragraphs, then sentences, packed greedily up to `size` tokens with `overlap` tokens carried over.
import { validateChunkOptions, type ChunkOptions } from "./options.ts";
import { splitSections } from "./sections.ts";
import { fitPieces, paragraphs, sentences, words, type Span } from "./spans.ts";
import { CHARS_PER_TOKEN, spanTokens } from "./tokens.ts";

export { CHUNK_SIZE_LIMITS, DEFAULT_CHUNK_OPTIONS, validateChunkOptions, type ChunkOptions, type ChunkOptionsError } from "./options.ts";
export { CHARS_PER_TOKEN, estimateTokens } from "./tokens.ts";

export interface Chunk {
  /** Exactly text.slice(start, end) of the input: the heading is not prefixed (see `heading`). */
  text: string;
  /** 0-based order in the document. */
  position: number;
  /**
   * The heading path the chunk falls under ("Guide > Install"), kept apart from `text` so the text
   * stays a true slice of the source, the size bound covers content only, and the heading is stored
   * once in its own column; whoever embeds or quotes a chunk prefixes it (indexing.ts does).
   */
  heading?: string;
  start: number;
  end: number;
}

/**
 * Chunks never cross a heading and end only where a sentence (or paragraph, list item, row) ends,
 * unless one sentence alone exceeds `size`: then it is cut between words. Each chunk after the first
 * in a section starts with up to `overlap` tokens from the end of the previous one: whole sentences
 * when they fit, else its last words; less, or none, when the next sentence leaves no room.
 * Throws RangeError for options that validateChunkOptions rejects.
 */
export function chunkText(text: string, options: ChunkOptions): Chunk[] {
  const problems = validateChunkOptions(options);
  if (problems.length > 0) throw new RangeError(problems.map((p) => `${p.field} ${p.message}`).join("; "));
  const { size, overlap } = options;
  const chunks: Chunk[] = [];
  const push = (span: Span, heading: string | undefined) =>
    chunks.push({ text: text.slice(span.start, span.end), position: chunks.length, ...(heading ? { heading } : {}), start: span.start, end: span.end });

  for (const section of splitSections(text)) {
    const pieces = paragraphs(text, section.start, section.end).flatMap((paragraph) => fitPieces(text, paragraph, size));
    let current: Span | null = null;
    for (const piece of pieces) {
      if (current && spanTokens(current.start, piece.end) <= size) {
        current.end = piece.end;
        continue;
      }
      if (current) push(current, section.heading);
      const carried: number | null = current && overlap > 0 ? overlapStart(text, current, piece.end, size, overlap) : null;
      current = { start: carried ?? piece.start, end: piece.end };
    }
    if (current) push(current, section.heading);
  }
  return chunks;
}

/**
 * Where the next chunk starts inside the previous one: the earliest sentence start whose tail fits
 * `overlap` (and the new chunk `size`), else the earliest such word start; null when nothing fits.
 * Never the previous chunk's own start, or the new chunk would swallow it whole.
 */
function overlapStart(text: string, previous: Span, nextEnd: number, size: number, overlap: number): number | null {
  const fits = (start: number) => start > previous.start && spanTokens(start, previous.end) <= overlap && spanTokens(start, nextEnd) <= size;
  const sentenceStart = sentences(text, previous.start, previous.end).find((s) => fits(s.start))?.start;
  if (sentenceStart !== undefined) return sentenceStart;
  // Only the tail can fit, so only the tail needs scanning for word starts.
  const from = Math.max(previous.start, previous.end - overlap * CHARS_PER_TOKEN - 1);
  const wholeWord = (start: number) => /\s/.test(text[start - 1]);
  return words(text, from, previous.end).find((w) => wholeWord(w.start) && fits(w.start))?.start ?? null;
}
