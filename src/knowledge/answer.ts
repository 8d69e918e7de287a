// Turning a retrieved passage into a short spoken answer when no model is there to phrase it.

const STOPWORDS = new Set(
  "a an the is are was were be been being do does did i you he she it we they me my your our their what which who whom when where why how can could would should will shall may might must of in on at to for from by with about as and or but if then so than that this these those there here not no yes please tell know want like".split(" "),
);

const words = (text: string) => text.toLowerCase().match(/[a-z0-9]+/g) ?? [];

/** The passage's one or two sentences that share the most words with the question (the first ones if none do). */
export function spokenAnswer(passage: string, question: string, maxSentences = 2): string {
  const sentences = passage
    .replace(/\s+/g, " ")
    .split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0 && !/^#/.test(s));
  if (sentences.length <= maxSentences) return sentences.join(" ");
  const asked = new Set(words(question).filter((w) => !STOPWORDS.has(w)));
  const scored = sentences.map((sentence, index) => ({ index, score: words(sentence).filter((w) => asked.has(w)).length }));
  const best = scored.reduce((top, s) => (s.score > top.score ? s : top), scored[0]);
  const start = best.score === 0 ? 0 : best.index;
  return sentences.slice(start, start + maxSentences).join(" ");
}
