// Built-in embedder benchmark: retrieval quality (hit@1/5/10 on test/knowledge/retrieval-set.ts, overall
// and by question kind) for the shipped embedder, ablations and a bag-of-words baseline, then throughput.
// Usage: bun scripts/bench/embedder-quality.ts [--seeds 8] [--stream 5000]
import { buildLexicon } from "../../src/knowledge/embedding/builtin/lexicon.macro.ts";
import { type EmbedFunction, createEmbedder } from "../../src/knowledge/embedding/builtin/embedder.ts";
import { BUILTIN_DIMENSION, embedTexts } from "../../src/knowledge/embedding/builtin/index.ts";
import { DEFAULT_WEIGHTS, type FeatureSwitches } from "../../src/knowledge/embedding/builtin/token-features.ts";
import { PASSAGES, QUESTIONS, type RetrievalQuestion, hitAtK } from "../../test/knowledge/retrieval-set.ts";

const args = Object.fromEntries(process.argv.slice(2).join(" ").split("--").filter(Boolean).map((a) => a.trim().split(/\s+/)));
const SEEDS = Number(args.seeds ?? 8);
const STREAM = Number(args.stream ?? 5_000);

// Throughput is on one core. Words are analysed once per process, so text full of words not seen yet
// costs more than text whose words were seen before (most of a knowledge-base import after a few pages).
const throughput = (texts: string[], embed: EmbedFunction) => {
  const started = performance.now();
  embed(texts);
  return (texts.length / (performance.now() - started)) * 1000;
};
const passageTexts = PASSAGES.map((passage) => passage.text);
// First, before anything warms the lexicon or the word caches: the one-off cost of the first call in a
// process, then the passages while every one of their words is still new to the process.
const initStarted = performance.now();
embedTexts(["warm-up"]);
const initMs = performance.now() - initStarted;
const unseenVocabulary = throughput(passageTexts, createEmbedder(BUILTIN_DIMENSION));

const variants: { name: string; switches: FeatureSwitches }[] = [
  { name: "full (shipped)", switches: { lemmas: true, charNgrams: true, concepts: true, stopwords: true } },
  { name: "no WordNet concepts", switches: { lemmas: true, charNgrams: true, concepts: false, stopwords: true } },
  { name: "no WordNet at all", switches: { lemmas: false, charNgrams: true, concepts: false, stopwords: true } },
  { name: "no char n-grams", switches: { lemmas: true, charNgrams: false, concepts: true, stopwords: true } },
  { name: "bag of words", switches: { lemmas: false, charNgrams: false, concepts: false, stopwords: true } },
];

const percent = (value: number) => `${(value * 100).toFixed(0)}%`.padStart(5);
const row = (name: string, embed: EmbedFunction, questions: RetrievalQuestion[] = QUESTIONS) => {
  const [at1, at5, at10] = [1, 5, 10].map((k) => hitAtK(embed, k, questions));
  const cells = [at1, at5, at10].map((hits) => `${percent(hits.overall)} ${percent(hits.sharesWord)} ${percent(hits.paraphrase)}`);
  console.log(`${name.padEnd(24)} ${cells.join("   ")}`);
};

const paraphrases = QUESTIONS.filter((question) => question.kind === "paraphrase").length;
console.log(`${PASSAGES.length} passages, ${QUESTIONS.length} questions (${paraphrases} paraphrases sharing no content word with their target)`);
console.log(`${"".padEnd(24)} ${["hit@1", "hit@5", "hit@10"].map((h) => `${h.padEnd(5)} all/word/para`.padEnd(17)).join("   ")}`);
for (const { name, switches } of variants) row(name, createEmbedder(BUILTIN_DIMENSION, switches));

const heldOut = QUESTIONS.filter((question) => question.heldOut);
console.log(`\nheld-out questions only (${heldOut.length}, written after the weights were tuned):`);
row("full (shipped)", embedTexts, heldOut);
row("no WordNet concepts", createEmbedder(BUILTIN_DIMENSION, variants[1].switches), heldOut);

// Hash collisions in 384 dimensions move individual ranks; the mean over seeds shows the expected value.
console.log(`\nmean over ${SEEDS} hash seeds (collision noise):`);
for (const variant of [variants[0], variants[1], variants[4]]) {
  const totals = [0, 0, 0].map(() => ({ overall: 0, sharesWord: 0, paraphrase: 0 }));
  for (let seed = 0; seed < SEEDS; seed++) {
    const embed = createEmbedder(BUILTIN_DIMENSION, variant.switches, { ...DEFAULT_WEIGHTS, hashSeed: seed * 7919 });
    [1, 5, 10].forEach((k, i) => {
      const hits = hitAtK(embed, k);
      totals[i].overall += hits.overall / SEEDS;
      totals[i].sharesWord += hits.sharesWord / SEEDS;
      totals[i].paraphrase += hits.paraphrase / SEEDS;
    });
  }
  console.log(`${variant.name.padEnd(24)} ${totals.map((t) => `${percent(t.overall)} ${percent(t.sharesWord)} ${percent(t.paraphrase)}`).join("   ")}`);
}

const steadyEmbed = createEmbedder(BUILTIN_DIMENSION);
steadyEmbed(passageTexts);
let embedded = 0;
const steadyStarted = performance.now();
while (performance.now() - steadyStarted < 1_000) {
  steadyEmbed(passageTexts);
  embedded += passageTexts.length;
}
const steady = (embedded / (performance.now() - steadyStarted)) * 1000;
// An import-like stream: passages recombined, with numbers, names and a typo in every third passage.
const stream = Array.from({ length: STREAM }, (_, i) => {
  const text = `${passageTexts[i % passageTexts.length]} ${passageTexts[(i * 7 + 3) % passageTexts.length]} Ref ${i}, branch ${i % 211}.`;
  return i % 3 === 0 ? text.replace(/([a-z])([a-z])([a-z]{3,})/, "$2$1$3") : text;
});
const streamRate = throughput(stream, createEmbedder(BUILTIN_DIMENSION));

const lexiconBytes = JSON.stringify(buildLexicon()).length;
console.log(`\nthroughput (one core, passages/s): words all unseen ${unseenVocabulary.toFixed(0)}, steady state ${steady.toFixed(0)}, ${STREAM}-passage import-like stream ${streamRate.toFixed(0)}`);
console.log(`first call in a process (parses the inlined lexicon): ${initMs.toFixed(0)} ms; inlined lexicon: ${(lexiconBytes / 1024 / 1024).toFixed(2)} MiB`);
