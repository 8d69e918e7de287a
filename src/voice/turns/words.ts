// Transcripts compared as words: a recogniser's interim and final results of the same speech differ in
// case and punctuation ("my order" / "My order?"), which must not count as the caller saying otherwise.
import { words } from "./cues.ts";

export function sameWords(a: string, b: string): boolean {
  return words(a).join(" ") === words(b).join(" ");
}
