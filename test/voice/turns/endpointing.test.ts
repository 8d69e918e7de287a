// The end-of-turn decision on written cases: the conversation benchmark's corpus (every mid-utterance
// pause must not look finished, every question must) and the cues one by one.
import { describe, expect, test } from "bun:test";
import { COMPLETE, DIGITS, PAUSED, parts } from "../../../scripts/bench/conversation/corpus.ts";
import { type EndpointingInput, fixedEndpointing, textCueEndpointing } from "../../../src/voice/turns/endpointing.ts";

const DELAYS = { minMs: 300, neutralMs: 600, maxMs: 2000 };
const policy = textCueEndpointing(DELAYS);
const decide = (text: string, more: Partial<EndpointingInput> = {}) =>
  policy.decide({ text, punctuated: true, speechMs: 1500, agentLast: null, language: "en-US", ...more });
const completeness = (text: string, more: Partial<EndpointingInput> = {}) => decide(text, more).completeness;

/** What the caller has said when each mid-utterance pause begins, with the pause's length. */
const pauses = [...PAUSED, ...DIGITS].flatMap((turn) => {
  const pieces = parts(turn);
  return pieces.slice(0, -1).map((piece, i) => ({ said: pieces.slice(0, i + 1).map((p) => p.text).join(" "), pauseMs: piece.pauseAfterMs }));
});

describe("text-cue endpointing on the benchmark corpus", () => {
  test("the corpus has its mid-utterance pauses", () => {
    expect(pauses.length).toBeGreaterThanOrEqual(100);
  });

  test("no mid-utterance pause looks finished to a punctuating recogniser, and the wait outlasts the pause", () => {
    const wrong = pauses
      .map(({ said, pauseMs }) => ({ said, pauseMs, decision: decide(said) }))
      .filter(({ decision, pauseMs }) => !["unfinished", "likely_unfinished"].includes(decision.completeness) || decision.waitMs <= pauseMs)
      .map(({ said, decision }) => `${said}: ${decision.completeness} (${decision.reason})`);
    expect(wrong).toEqual([]);
  });

  test("no mid-utterance pause looks finished to a recogniser without punctuation", () => {
    const wrong = pauses.map(({ said }) => ({ said, decision: decide(said, { punctuated: false }) })).filter(({ decision }) => decision.completeness === "complete");
    expect(wrong.map(({ said, decision }) => `${said}: ${decision.reason}`)).toEqual([]);
  });

  test("the cue is named: trailing words, numbers being read, openers", () => {
    expect(decide("And").reason).toBe("trailing conjunction 'and'");
    expect(decide("Um").reason).toBe("trailing filler 'um'");
    expect(decide("I live at").reason).toBe("trailing preposition 'at'");
    expect(decide("My number is").reason).toBe("'my number is' with no value yet");
    expect(decide("My number is 4 1 5").reason).toBe("digits so far: 3");
    expect(decide("My number is 4 1 5 5 5 5").reason).toBe("digits so far: 6");
    expect(decide("I was wondering").reason).toBe("'wondering' needs what follows");
    expect(decide("If possible").reason).toBe("opens with 'if', no main clause yet");
    expect(decide("The order number")).toEqual({ completeness: "likely_unfinished", waitMs: 1300, reason: "a noun phrase and no verb yet" });
  });

  test("every complete question, with its question mark, is complete (the shortest wait)", () => {
    const wrong = COMPLETE.map((q) => ({ q, decision: decide(q) })).filter(({ decision }) => decision.completeness !== "complete" || decision.waitMs !== 300);
    expect(wrong.map(({ q, decision }) => `${q}: ${decision.completeness}`)).toEqual([]);
    expect(decide(COMPLETE[0]).reason).toBe("terminal '?'");
  });

  test("a recogniser without punctuation: every complete question still looks complete; a punctuating one without its '?' is likely unfinished", () => {
    const bare = COMPLETE.map((q) => q.replace(/\?$/, ""));
    const wrong = bare.filter((q) => completeness(q, { punctuated: false }) !== "complete");
    expect(wrong).toEqual([]);
    expect(bare.filter((q) => completeness(q) !== "likely_unfinished")).toEqual([]);
  });

  test("every paused answer, once the caller has said all of it (with its full stop), is complete", () => {
    const whole = PAUSED.map((turn) => parts(turn).map((p) => p.text).join(" "));
    expect(whole.filter((said) => completeness(said) !== "complete")).toEqual([]);
  });

  test("a phone number is complete at 10 digits, spoken as digits or as words", () => {
    expect(decide("My number is 4 1 5 5 5 5 0 1 2 3")).toEqual({ completeness: "complete", waitMs: 300, reason: "10 digits: a whole phone number" });
    expect(completeness("Call me on 2 1 2 |700| 5 5 5 |800| 0 1 6 6".replace(/\|\d+\| /g, ""), { punctuated: false })).toBe("complete");
    expect(decide("my number is oh seven seven double nine", { punctuated: false }).reason).toBe("digits so far: 5");
    expect(completeness("my number is oh seven seven double nine oh oh one two three four", { punctuated: false })).toBe("complete");
    // A recogniser that marks the end of each group read does not end the number.
    expect(decide("My number is 415.").reason).toBe("digits so far: 3");
  });
});

describe("text-cue endpointing, cue by cue", () => {
  test("waits: complete → min, unknown → neutral, likely unfinished → halfway to max, unfinished → max", () => {
    expect(decide("What time is it?").waitMs).toBe(300);
    expect(decide("I ordered a sofa", { punctuated: false }).waitMs).toBe(600);
    expect(decide("I ordered a sofa").waitMs).toBe(1300);
    expect(decide("and").waitMs).toBe(2000);
    const other = textCueEndpointing({ minMs: 100, neutralMs: 1000, maxMs: 4001 });
    expect(["ok?", "ok", "and"].map((text) => other.decide({ text, punctuated: true, speechMs: 500, agentLast: null, language: "en" }).waitMs)).toEqual([100, 2501, 4001]);
  });

  test("no words yet: the neutral wait", () => {
    for (const text of ["", "   ", "...", "?"]) expect(decide(text)).toEqual({ completeness: "unknown", waitMs: 600, reason: "no words yet" });
  });

  test("other languages: no text cues, the neutral wait", () => {
    expect(decide("und", { language: "de-DE" })).toEqual({ completeness: "unknown", waitMs: 600, reason: "no text cues for 'de-DE'" });
    expect(completeness("¿Qué hora es?", { language: "es" })).toBe("unknown");
    expect(completeness("and", { language: "en-GB" })).toBe("unfinished");
    expect(completeness("and", { language: "EN" })).toBe("unfinished");
  });

  test("fixed mode: always the configured wait", () => {
    const fixed = fixedEndpointing(800);
    for (const text of ["", "and", "What time is it?", "My number is 4 1 5"]) {
      expect(fixed.decide({ text, punctuated: true, speechMs: 900, agentLast: "Which day?", language: "en" })).toEqual({ completeness: "unknown", waitMs: 800, reason: "fixed" });
    }
  });

  test("a terminal mark does not end a trailing hesitation, conjunction, article or 'my name is'", () => {
    for (const text of ["And.", "and.", "Um.", "I went to the.", "My name is.", "I need it because.", "Uh-huh, and?"]) {
      expect([text, completeness(text)]).toEqual([text, text.endsWith("?") ? "complete" : "unfinished"]);
    }
  });

  test("words that look like cues and are not: a stranded preposition in a question, 'as well', 'I think so', 'yes I do'", () => {
    expect(completeness("What is it for?")).toBe("complete");
    expect(completeness("Where are you calling from?")).toBe("complete");
    expect(completeness("I think so.")).toBe("complete");
    expect(completeness("i think so", { punctuated: false, agentLast: "Is that all?" })).toBe("complete");
    expect(completeness("do you repair bicycles as well", { punctuated: false })).toBe("complete");
    expect(completeness("what do you think", { punctuated: false })).toBe("complete");
    expect(completeness("yes I do", { punctuated: false, agentLast: "Do you have the reference?" })).toBe("complete");
    expect(completeness("I tried turning it off and on.")).toBe("complete");
    // … while the same words without those contexts are cues.
    expect(completeness("I think", { punctuated: false })).toBe("unfinished");
    expect(completeness("it is", { punctuated: false, agentLast: "Is it?" })).toBe("unfinished");
    expect(completeness("the blue one.")).toBe("complete");
  });

  test("soft cues give way to a terminal mark; without one they are cues", () => {
    for (const text of ["I would like", "The problem is", "Well", "I paid for that", "I tried turning it off and on"]) {
      expect([text, completeness(text, { punctuated: false })]).toEqual([text, "unfinished"]);
      expect([text, completeness(`${text}.`)]).toEqual([text, "complete"]);
    }
  });

  test("an ellipsis trails off: not a terminal mark", () => {
    expect(completeness("I was wondering...")).toBe("unfinished");
    expect(completeness("I ordered a sofa…")).toBe("likely_unfinished");
    expect(completeness("I ordered a sofa.")).toBe("complete");
  });

  test("a short answer to the agent's question is complete on any recogniser", () => {
    const asked = "Which day would suit you?";
    for (const answer of ["yes", "no thanks", "Sarah Miller", "Thursday", "the blue one"]) {
      for (const punctuated of [true, false]) {
        expect([answer, punctuated, decide(answer, { agentLast: asked, punctuated })]).toEqual([answer, punctuated, { completeness: "complete", waitMs: 300, reason: "short answer to the agent's question" }]);
      }
      // After a statement, the same words are no answer: a punctuating recogniser's missing mark counts.
      expect([answer, completeness(answer, { agentLast: "I can help you with that." })]).toEqual([answer, "likely_unfinished"]);
    }
    // An open question ("How can I help?") is answered by a sentence that may pause anywhere: no short answer expected.
    for (const open of ["Hello, this is Acme. How can I help?", "What can I do for you today?", "Is there anything else I can help with?"]) {
      expect([open, completeness("I need it", { agentLast: open })]).toEqual([open, "likely_unfinished"]);
    }
    // "mm-hmm" is an answer, its "hmm" no trailing hesitation.
    expect(completeness("Mm-hmm.", { agentLast: asked })).toBe("complete");
    expect(completeness("uh-huh", { agentLast: asked, punctuated: false })).toBe("complete");
    // A clause mark says more is coming, even after a short answer ("Thanks, goodbye" paused at its comma).
    expect(completeness("Thanks,", { agentLast: asked, punctuated: false })).toBe("likely_unfinished");
    expect(completeness("yes;", { agentLast: asked })).toBe("likely_unfinished");
    expect(completeness("yes I would like", { agentLast: asked })).toBe("unfinished");
    expect(completeness("yes and", { agentLast: asked })).toBe("unfinished");
    expect(completeness("I would like to come on Thursday", { agentLast: asked })).toBe("likely_unfinished");
  });

  test("a short numeric answer: complete when the agent asked how many, a number being read when it asked for a number", () => {
    expect(completeness("four", { agentLast: "How many people will be coming?" })).toBe("complete");
    expect(completeness("twenty two", { agentLast: "How old is he?" })).toBe("complete");
    expect(decide("4 1 5", { agentLast: "What is your phone number?" }).reason).toBe("digits so far: 3");
    expect(decide("four one five", { agentLast: "What's your account number?", punctuated: false }).reason).toBe("digits so far: 3");
    expect(completeness("a table for four", { punctuated: false })).toBe("unknown");
  });

  test("a question without punctuation: whole when it opens with a wh-word or an auxiliary and ends on a content word", () => {
    expect(decide("what time do you open on saturdays", { punctuated: false })).toEqual({ completeness: "complete", waitMs: 300, reason: "a whole question (recogniser without punctuation)" });
    expect(completeness("um so what time do you open on saturdays", { punctuated: false })).toBe("complete");
    expect(completeness("when will my order arrive", { punctuated: false })).toBe("complete");
    for (const unfinished of ["what time do you", "could you", "can I", "what is the"]) expect([unfinished, completeness(unfinished, { punctuated: false })]).not.toEqual([unfinished, "complete"]);
    expect(completeness("I ordered a sofa", { punctuated: false })).toBe("unknown");
  });

  test("an utterance opening with a subordinator and no main clause is unfinished", () => {
    for (const text of ["if possible", "because the last time", "When I called yesterday", "Although it works"]) {
      expect([text, completeness(text, { punctuated: false })]).toEqual([text, "unfinished"]);
    }
    expect(completeness("If it rains, we close early.")).toBe("complete");
  });

  test("a noun phrase with no verb leans unfinished", () => {
    for (const text of ["the order number", "And my husband", "for the account"]) {
      for (const punctuated of [true, false]) expect([text, completeness(text, { punctuated })]).toEqual([text, "likely_unfinished"]);
    }
    expect(completeness("the order number is", { punctuated: false })).toBe("unfinished");
  });

  test("case and hyphens are read as words", () => {
    expect(completeness("MY NAME IS")).toBe("unfinished");
    expect(decide("My number is four-one-five").reason).toBe("digits so far: 3");
    expect(completeness("What's the price?")).toBe("complete");
  });
});
