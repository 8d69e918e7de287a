import {
  BACKCHANNEL_PAIRS,
  ARTICLES,
  AUXILIARIES,
  AMBIGUOUS_NUMBERS,
  COMPLEMENT_VERBS,
  CONJUNCTIONS,
  FILLER_PAIRS,
  HESITATIONS,
  NOT_CUES,
  NUMBER_KEYS,
  NUMBER_QUESTION,
  NUMBER_WORD_DIGITS,
  PREPOSITIONS,
  SOFT_CONJUNCTIONS,
  SOFT_DETERMINERS,
  SOFT_FILLERS,
  SOFT_PREPOSITIONS,
  SUBJECT_PRONOUNS,
  SUBORDINATORS,
  TENS,
  UNITS,
  VALUE_NOUNS,
  WH_WORDS,
  YES_NO,
  words,
} from "./cues.ts";

// When has the caller finished? The wait after their speech goes silent, from how finished their words
// look. Pluggable (EndpointingPolicy) so a model-based turn detector can take the text cues' place.

export interface EndpointingInput {
  /** What the recogniser has heard of this utterance so far (latest partial / speculative transcript); "" if none yet. */
  text: string;
  /** The recogniser marks sentence ends (Deepgram punctuate=true, Whisper): a missing terminal mark then hints "not finished". */
  punctuated: boolean;
  /** Voiced time of the utterance so far, ms. */
  speechMs: number;
  /** What the agent said last (its last turn's text), or null: an expected short answer may end sooner. */
  agentLast: string | null;
  /** BCP 47 of the agent; cues are English-only, other languages get "unknown". */
  language: string;
}
export type Completeness = "complete" | "unknown" | "likely_unfinished" | "unfinished";
export interface EndpointingDecision {
  completeness: Completeness;
  waitMs: number;
  reason: string;
}
export interface EndpointingPolicy {
  decide(input: EndpointingInput): EndpointingDecision;
}
export interface EndpointingDelays {
  minMs: number;
  neutralMs: number;
  maxMs: number;
}

/** The same wait whatever was said: the behaviour before dynamic endpointing ("fixed" mode). */
export function fixedEndpointing(ms: number): EndpointingPolicy {
  return { decide: () => ({ completeness: "unknown", waitMs: ms, reason: "fixed" }) };
}

/**
 * The default policy: English text cues on the latest hypothesis, in this order (the first that
 * applies decides).
 * 1. No words → unknown. Another language → unknown.
 * 2. A number being read (trailing digits or number words with a number word such as "number",
 *    "code", "card" in the four words before them, or asked for by the agent, or 5+ digits): fewer
 *    than 10 digits → unfinished, 10 or more → complete (a phone number). Overrides a terminal mark,
 *    since recognisers mark the end of each group read.
 * 3. The last word cannot end a sentence → unfinished: a hesitation, an article or possessive, "my
 *    number is" (whatever the punctuation); a conjunction or preposition unless the mark is "?"
 *    ("what is it for?"); with no terminal mark also a particle (in, on, by), a soft filler (well,
 *    so, like, you know), a soft conjunction or determiner (that, then, this), an auxiliary ("I
 *    would") or a verb that needs a complement ("I want"). Not cues: "as well", "I think so", "yes
 *    I do", "what do you think".
 * 4. Opens with a subordinator ("if possible", "because the …"), no comma and no mark → unfinished.
 * 5. A trailing clause mark ("Thanks," — more is coming) → likely unfinished.
 * 6. The agent asked a question and the answer is 3 words or fewer → complete.
 * 7. A terminal mark . ? ! (not "…", which trails off) → complete.
 * 8. A short noun phrase with no verb ("the order number", "and my husband") → likely unfinished.
 * 9. Recogniser without punctuation: a question (wh-word or auxiliary first, 3+ words, not ending
 *    on an auxiliary and its subject: "what time do you") → complete.
 * 10. Punctuating recogniser, no terminal mark → likely unfinished; otherwise unknown.
 */
export function textCueEndpointing(delays: EndpointingDelays): EndpointingPolicy {
  const waits: Record<Completeness, number> = {
    complete: delays.minMs,
    unknown: delays.neutralMs,
    likely_unfinished: Math.round((delays.neutralMs + delays.maxMs) / 2),
    unfinished: delays.maxMs,
  };
  return {
    decide(input) {
      const { completeness, reason } = judge(input);
      return { completeness, waitMs: waits[completeness], reason };
    },
  };
}

interface Judgement {
  completeness: Completeness;
  reason: string;
}
const judgement = (completeness: Completeness, reason: string): Judgement => ({ completeness, reason });

const ENGLISH = /^en(?:[-_]|$)/i;
const DIGITS = /^\d+$/;

function judge(input: EndpointingInput): Judgement {
  const ws = words(input.text);
  if (ws.length === 0) return judgement("unknown", "no words yet");
  if (!ENGLISH.test(input.language)) return judgement("unknown", `no text cues for '${input.language}'`);
  const mark = terminalMark(input.text);
  const asked = input.agentLast !== null && expectsShortAnswer(input.agentLast);
  const digits = numberBeingRead(ws, input.agentLast !== null && NUMBER_QUESTION.test(input.agentLast));
  if (digits >= 10) return judgement("complete", `${digits} digits: a whole phone number`);
  if (digits > 0) return judgement("unfinished", `digits so far: ${digits}`);
  const start = firstWord(ws);
  const cue = trailingCue(ws, mark, start);
  if (cue) return judgement("unfinished", cue);
  const opener = ws[start];
  if (!mark && SUBORDINATORS.has(opener) && !AUXILIARIES.has(ws[start + 1]) && !input.text.includes(",")) {
    return judgement("unfinished", `opens with '${opener}', no main clause yet`);
  }
  const clause = clauseMark(input.text);
  if (clause) return judgement("likely_unfinished", `trailing '${clause}'`);
  if (asked && ws.length <= 3) return judgement("complete", "short answer to the agent's question");
  if (mark) return judgement("complete", `terminal '${mark}'`);
  if (verblessNounPhrase(ws)) return judgement("likely_unfinished", "a noun phrase and no verb yet");
  if (!input.punctuated && looksLikeQuestion(ws, start)) return judgement("complete", "a whole question (recogniser without punctuation)");
  if (input.punctuated) return judgement("likely_unfinished", "no terminal mark from a punctuating recogniser");
  return judgement("unknown", "no cue");
}

/** The sentence-ending mark at the end of the text ("." "?" "!"), or null; an ellipsis trails off, so it is none. */
function terminalMark(text: string): "." | "?" | "!" | null {
  let i = text.length - 1;
  while (i >= 0 && CLOSERS.includes(text[i])) i--;
  const c = text[i];
  if (c === "?" || c === "!") return c;
  if (c === "." && text[i - 1] !== ".") return ".";
  return null;
}
const CLOSERS = " \t\n\"'”’)]";

/** A clause mark (, ; : —) at the end of the text, or null. */
function clauseMark(text: string): string | null {
  let i = text.length - 1;
  while (i >= 0 && CLOSERS.includes(text[i])) i--;
  return ",;:\u2014".includes(text[i]) && i >= 0 ? text[i] : null;
}

/**
 * The agent's last words end with a question a few words answer: yes/no, a choice, a name, a day, a
 * number ("Which day would suit you?"); not an open one ("How can I help?", "What can I do for you?"),
 * whose answer is a sentence that may pause anywhere.
 */
function expectsShortAnswer(said: string): boolean {
  if (!endsWithQuestion(said)) return false;
  const question = said.slice(Math.max(said.lastIndexOf(". "), said.lastIndexOf("! ")) + 1).toLowerCase();
  return !OPEN_QUESTION.test(question);
}
const OPEN_QUESTION = /\bhelp\b|\bdo for you\b|^\s*(?:why|how (?:can|may|could)|what (?:can|could|would you like to)|anything else)\b|\btell me (?:about|more)\b/;

function endsWithQuestion(said: string): boolean {
  let i = said.length - 1;
  while (i >= 0 && CLOSERS.includes(said[i])) i--;
  return said[i] === "?";
}

/** Index of the first word after leading hesitations and soft fillers ("um so what time …" → "what"). */
function firstWord(ws: string[]): number {
  let i = 0;
  while (i < ws.length - 1 && (HESITATIONS.has(ws[i]) || SOFT_FILLERS.has(ws[i]))) i++;
  return i;
}

/**
 * How many digits the trailing group of digits or number words says, when it is a number being
 * read (0 when it is not): "4 1 5" 3, "oh seven seven" 3, "twenty two" 2, "double five" 2.
 */
function numberBeingRead(ws: string[], agentAskedForNumber: boolean): number {
  let digits = 0;
  let unambiguous = false;
  let i = ws.length - 1;
  for (; i >= 0; i--) {
    const w = ws[i];
    if (DIGITS.test(w)) {
      digits += w.length;
      unambiguous = true;
      continue;
    }
    const said = NUMBER_WORD_DIGITS.get(w);
    if (said === undefined) break;
    // "twenty two" says two digits: the unit after a tens word is its second.
    digits += TENS.has(w) && UNITS.has(ws[i + 1]) ? said - 1 : said;
    if (!AMBIGUOUS_NUMBERS.has(w)) unambiguous = true;
  }
  if (!unambiguous) return 0;
  if (digits >= 5 || agentAskedForNumber) return digits;
  for (let j = i; j >= 0 && j > i - 4; j--) if (NUMBER_KEYS.has(ws[j])) return digits;
  return 0;
}

/** Why the last word(s) cannot end the sentence, or null. */
function trailingCue(ws: string[], mark: string | null, start: number): string | null {
  const n = ws.length;
  const last = ws[n - 1];
  const prev = n > 1 ? ws[n - 2] : "";
  const pair = `${prev} ${last}`;
  // "mm-hmm" and "uh-huh" are answers, not a trailing hesitation.
  if (NOT_CUES.has(pair) || BACKCHANNEL_PAIRS.has(pair)) return null;
  if ((last === "is" || last === "was") && valueNounBefore(ws)) return `'${ws.slice(Math.max(0, n - 3)).join(" ")}' with no value yet`;
  if (HESITATIONS.has(last)) return `trailing filler '${last}'`;
  if (ARTICLES.has(last)) return `trailing determiner '${last}'`;
  if (mark !== "?" && CONJUNCTIONS.has(last)) return `trailing conjunction '${last}'`;
  if (mark !== "?" && PREPOSITIONS.has(last)) return `trailing preposition '${last}'`;
  if (mark) return null;
  if (FILLER_PAIRS.has(pair)) return `trailing filler '${pair}'`;
  // A wh-word is the complement: "what would you like", "what do you think".
  if (COMPLEMENT_VERBS.has(last) && WH_WORDS.has(ws[start])) return null;
  if (SOFT_FILLERS.has(last)) return `trailing filler '${last}'`;
  if (SOFT_CONJUNCTIONS.has(last)) return `trailing conjunction '${last}'`;
  if (SOFT_DETERMINERS.has(last)) return `trailing determiner '${last}'`;
  if (SOFT_PREPOSITIONS.has(last)) return `trailing preposition '${last}'`;
  // "yes I do", "no it is": an elliptical answer, finished.
  if (AUXILIARIES.has(last) && !(YES_NO.has(ws[0]) && (SUBJECT_PRONOUNS.has(prev) || prev === "it"))) return `trailing auxiliary '${last}'`;
  if (COMPLEMENT_VERBS.has(last)) return `'${last}' needs what follows`;
  return null;
}

/** "my number is", "the order number is", "my date of birth is": a value noun in the three words before "is". */
function valueNounBefore(ws: string[]): boolean {
  for (let j = ws.length - 2; j >= 0 && j >= ws.length - 4; j--) if (VALUE_NOUNS.has(ws[j])) return true;
  return false;
}

/** Up to three words, an article or possessive first (after a conjunction or preposition), and no verb. */
function verblessNounPhrase(ws: string[]): boolean {
  if (ws.length > 3) return false;
  const i = CONJUNCTIONS.has(ws[0]) || PREPOSITIONS.has(ws[0]) ? 1 : 0;
  if (i + 1 >= ws.length || !ARTICLES.has(ws[i])) return false;
  return !ws.some((w) => AUXILIARIES.has(w) || COMPLEMENT_VERBS.has(w));
}

/** A wh-word or an auxiliary first, three words or more, and not ending on an auxiliary and its subject ("what do you …"). */
function looksLikeQuestion(ws: string[], start: number): boolean {
  const n = ws.length;
  if (n - start < 3 || !(WH_WORDS.has(ws[start]) || AUXILIARIES.has(ws[start]))) return false;
  return !(SUBJECT_PRONOUNS.has(ws[n - 1]) && AUXILIARIES.has(ws[n - 2]));
}
