// The English words the turn-taking decisions read (endpointing.ts, overlap.ts), as sets built once:
// both run on every partial transcript of every call, so nothing here is compiled per call.

const set = (words: string): ReadonlySet<string> => new Set(words.split(" "));
/** Phrases of two or more words, "|"-separated, each kept as its words joined by one space. */
const phrases = (list: string): ReadonlySet<string> => new Set(list.split("|"));

/** A transcript's words: lower case, apostrophes kept inside a word ("that's"), hyphens and other marks split ("mm-hmm" → mm hmm). */
export function words(text: string): string[] {
  return text.toLowerCase().replace(CURLY_APOSTROPHE, "'").match(WORD) ?? [];
}
const WORD = /[\p{L}\p{N}]+(?:'[\p{L}\p{N}]+)*/gu;
const CURLY_APOSTROPHE = /[’‘]/g;

// ---- Endpointing: words after which a sentence cannot (or rarely does) end.

/** Hesitation sounds: nothing can follow them but more of the sentence, whatever the punctuation says. */
export const HESITATIONS = set("um umm uh uhh uhm er erm hmm");
/** Fillers that are also ordinary words ("I like it", "it went well", "basically."). */
export const SOFT_FILLERS = set("like well so basically");
export const FILLER_PAIRS = phrases("you know|i mean");
/** Conjunctions that join something still to come ("and?" alone asks for it). */
export const CONJUNCTIONS = set("and or nor but because although if");
/** Conjunctions and relatives that also end sentences as pronouns or adverbs ("I paid for that", "and then?"). */
export const SOFT_CONJUNCTIONS = set("so then that which when while");
/** Subordinators: an utterance opening with one has no main clause until a comma or more words ("if possible …"). */
export const SUBORDINATORS = set("if because when while although though unless since whether until before after once");
/** Prepositions: a stranded one ends a question ("what is it for?"), never a statement. */
export const PREPOSITIONS = set("to for of at with from about into onto than via");
/** Prepositions that are also particles ("turn it off and on", "can I come in"). */
export const SOFT_PREPOSITIONS = set("in on by");
/** Articles and determiners that need their noun, whatever the punctuation says. */
export const ARTICLES = set("the a an my your our their its every");
/** Determiners that are also pronouns ("that's hers", "I like this"). */
export const SOFT_DETERMINERS = set("his her this that these those some any");
/** Copulas, auxiliaries and modals: "the problem is", "I would". */
export const AUXILIARIES = set("is are was were am be been being have has had do does did will would could should can may might must shall");
/** Verbs that need a complement ("I want", "we would prefer", "I was wondering"); a wh-question supplies it ("what do you think"). */
export const COMPLEMENT_VERBS = set("need want like think tried started prefer wondering looking wanted needed trying hoping");
/** Two-word endings that look like cues and are not: "as well", "I think so". */
export const NOT_CUES = phrases("as well|think so|hope so|guess so|suppose so|believe so|said so|do so");
/** Nouns whose value follows "is": "my number is", "the reference is", "my date of birth is". */
export const VALUE_NOUNS = set("number name email address postcode zip code reference pin birth surname account extension phone");
/** Wh-words: with an auxiliary, what opens a question. */
export const WH_WORDS = set("what when where which who whom whose why how");
/** Subject pronouns: a question ending on one is not finished ("could you", "what do you"). */
export const SUBJECT_PRONOUNS = set("i you he she we they");
export const YES_NO = set("yes yeah yep yup no nope sure");

// ---- Numbers read aloud: how many digits each word says.

/** Digits a number word stands for: "five" 1, "fifteen" 2, "fifty" 2 (1 more than the unit after it says), "hundred" 2. */
export const NUMBER_WORD_DIGITS: ReadonlyMap<string, number> = new Map([
  ...[..."zero one two three four five six seven eight nine oh".split(" ")].map((w) => [w, 1] as const),
  ...[..."ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split(" ")].map((w) => [w, 2] as const),
  ...[..."twenty thirty forty fifty sixty seventy eighty ninety".split(" ")].map((w) => [w, 2] as const),
  ["double", 1],
  ["triple", 2],
  ["hundred", 2],
  ["thousand", 3],
]);
export const TENS = set("twenty thirty forty fifty sixty seventy eighty ninety");
export const UNITS = set("one two three four five six seven eight nine");
/** Words that are numbers only beside other numbers ("the blue one", "oh I see"). */
export const AMBIGUOUS_NUMBERS = set("one oh double triple hundred thousand");
/** Words that say a number is being read, in the agent's question ("what is your account number?"). */
const NUMBER_NOUNS = "number numbers code pin extension reference postcode zip account card phone mobile digits birth id address flight";
export const NUMBER_QUESTION = new RegExp(`\\b(?:${NUMBER_NOUNS.replaceAll(" ", "|")})\\b`, "i");
/** The same in the caller's words just before the digits, with the verbs that give a number ("call me on"). */
export const NUMBER_KEYS = set(`${NUMBER_NOUNS} call reach`);

// ---- Overlap: what a caller says while the agent talks.

/** Backchannels: the listener's "go on". */
export const BACKCHANNEL_WORDS = set("mhm mm hmm okay ok right yeah yes yep yup sure alright cool great fine true exactly oh ah wow really");
export const BACKCHANNEL_PAIRS = phrases("mm hmm|uh huh|uh hum|i see|got it|all right|that's right|fair enough|of course");
/** First words of two-word backchannels: alone and unfinished, they may still become one. */
export const BACKCHANNEL_STARTS = set("mm uh i got all that's fair of");
/** Stop cues: the caller takes the floor from the first of these words. */
export const STOP_WORDS = set("wait stop no sorry actually pardon but");
export const STOP_PHRASES = phrases("hold on|hang on|excuse me|just a moment|just a second|just a minute|just a sec|one moment|one second");
