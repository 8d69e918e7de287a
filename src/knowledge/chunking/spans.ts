// Where text may be cut, coarsest first: paragraphs, sentences, lines, words. Everything works on
// offsets into the original text so chunks can be sliced from it (and point back into it) exactly.
import { CHARS_PER_TOKEN, spanTokens } from "./tokens.ts";

export interface Span {
  start: number;
  end: number;
}

// Blank lines, including the form-feed line the PDF extractor puts between pages.
const PARAGRAPH_BREAK = /\n[ \t\f\v\r]*\n/g;
const LIST_OR_TABLE_LINE = /^[ \t]*(?:[-*+•][ \t]|\d{1,3}[.)][ \t]|\|)|[^|\n]\|[^|\n]/;
const SENTENCE_END = /[.!?…]+["'”’»)\]]*(?=\s|$)|[。！？]+["'」』”’)）]*/g;
// "Dr. Smith", "e.g. Paris", "Fig. 3": a full stop that does not end the sentence.
const ABBREVIATIONS = new Set([
  "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "no", "nr", "fig", "figs", "approx", "inc", "ltd", "co",
  "corp", "dept", "ca", "cf", "al", "ave", "mt", "ft", "vol", "pp", "ed", "eds", "rev", "gen", "gov", "sen", "rep",
  "jan", "feb", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec", "e.g", "i.e", "z.b", "bzw", "usw",
]);

export function paragraphs(text: string, from: number, to: number): Span[] {
  return splitAt(text, from, to, (slice) => [...slice.matchAll(PARAGRAPH_BREAK)].map((m) => m.index + m[0].length));
}

/** Sentences end at . ! ? … (with closing quotes) before whitespace, at blank lines and before list or table lines. */
export function sentences(text: string, from: number, to: number): Span[] {
  return splitAt(text, from, to, (slice) => {
    const cuts: number[] = [];
    for (const m of slice.matchAll(SENTENCE_END)) {
      const after = m.index + m[0].length;
      if (m[0][0] === "." && isAbbreviationOrMarker(slice, m.index)) continue;
      // A lower-case continuation means the stop was inside the sentence ("approx. ten", "v2. then").
      const next = /\S/.exec(slice.slice(after, after + 8))?.[0];
      if (next && /\p{Ll}/u.test(next)) continue;
      cuts.push(after);
    }
    for (const m of slice.matchAll(/\n/g)) {
      const lineEnd = slice.indexOf("\n", m.index + 1);
      const nextLine = slice.slice(m.index + 1, lineEnd < 0 ? slice.length : lineEnd);
      if (!nextLine.trim() || LIST_OR_TABLE_LINE.test(nextLine)) cuts.push(m.index + 1);
    }
    return cuts.sort((a, b) => a - b);
  });
}

export function lines(text: string, from: number, to: number): Span[] {
  return splitAt(text, from, to, (slice) => [...slice.matchAll(/\n/g)].map((m) => m.index + 1));
}

export function words(text: string, from: number, to: number): Span[] {
  return [...text.slice(from, to).matchAll(/\S+/g)].map((m) => ({ start: from + m.index, end: from + m.index + m[0].length }));
}

/** A list or table: cut it between its lines before cutting inside a line. */
export function isLineStructured(text: string, span: Span): boolean {
  const all = text.slice(span.start, span.end).split("\n");
  return all.length > 1 && all.filter((line) => LIST_OR_TABLE_LINE.test(line)).length * 2 >= all.length;
}

/**
 * `span` cut into pieces of at most `size` tokens, keeping each piece as large a unit as fits: whole, then
 * sentences (lines first for lists and tables), then words; a single word longer than `size` (a URL,
 * a base64 blob) is cut by characters.
 */
export function fitPieces(text: string, span: Span, size: number): Span[] {
  const order: Splitter[] = isLineStructured(text, span) ? [lines, sentences, words] : [sentences, lines, words];
  return fit(text, span, size, order);
}

type Splitter = (text: string, from: number, to: number) => Span[];

function fit(text: string, span: Span, size: number, splitters: Splitter[]): Span[] {
  if (spanTokens(span.start, span.end) <= size) return [span];
  const [split, ...rest] = splitters;
  if (!split) return byCharacters(text, span, size);
  const pieces = split(text, span.start, span.end);
  if (pieces.length <= 1) return fit(text, span, size, rest);
  return pieces.flatMap((piece) => fit(text, piece, size, rest));
}

function byCharacters(text: string, span: Span, size: number): Span[] {
  const pieces: Span[] = [];
  const width = size * CHARS_PER_TOKEN;
  for (let start = span.start; start < span.end; ) {
    let end = Math.min(start + width, span.end);
    // Never between the two halves of a surrogate pair (emoji, rare CJK).
    if (end < span.end && /[\ud800-\udbff]/.test(text[end - 1])) end--;
    pieces.push({ start, end });
    start = end;
  }
  return pieces;
}

function isAbbreviationOrMarker(slice: string, stopAt: number): boolean {
  const before = slice.slice(Math.max(0, stopAt - 24), stopAt);
  const word = /\S*$/.exec(before)![0].replace(/^[("'“‘«[]+/, "");
  if (ABBREVIATIONS.has(word.toLowerCase())) return true;
  // An initial ("J. Smith") or dotted abbreviation ("U.S.").
  if (/^\p{Lu}$/u.test(word) || /^(?:\p{L}\.)+\p{L}$/u.test(word)) return true;
  // "1. Download" at the start of a line is a list marker (looking back only 24 characters keeps this linear).
  const newline = before.lastIndexOf("\n");
  const linePrefix = newline >= 0 ? before.slice(newline + 1) : stopAt <= 24 ? before : "";
  return /^[ \t]*\d{1,3}$/.test(linePrefix);
}

/** Pieces of text[from, to) between the cut offsets (relative to the slice), whitespace trimmed, empties dropped. */
function splitAt(text: string, from: number, to: number, cutsOf: (slice: string) => number[]): Span[] {
  const spans: Span[] = [];
  let start = 0;
  for (const cut of [...cutsOf(text.slice(from, to)), to - from]) {
    if (cut <= start) continue;
    const span = trim(text, from + start, from + cut);
    if (span) spans.push(span);
    start = cut;
  }
  return spans;
}

export function trim(text: string, start: number, end: number): Span | null {
  while (start < end && /\s/.test(text[start])) start++;
  while (end > start && /\s/.test(text[end - 1])) end--;
  return start < end ? { start, end } : null;
}
