// Caller speech over the agent on written cases: the conversation benchmark's backchannels and
// interruptions, their first words as the recogniser's first partial, and the limits per sensitivity.
import { describe, expect, test } from "bun:test";
import { BACKCHANNELS, INTERRUPTIONS } from "../../../scripts/bench/conversation/corpus.ts";
import { classifyOverlap, type Sensitivity } from "../../../src/voice/turns/overlap.ts";

const SENSITIVITIES: Sensitivity[] = ["low", "medium", "high"];
/** A caller's pace: ~350 ms a word ("mm-hmm" is two). */
const speechMsOf = (text: string) => 350 * text.split(/[\s-]+/).length;
const verdict = (text: string, speechMs: number, ended: boolean, sensitivity: Sensitivity) => classifyOverlap({ text, speechMs, ended, sensitivity }).verdict;

describe("overlap classifier on the benchmark corpus", () => {
  test("every backchannel, at its end, is a backchannel at every sensitivity, and pending while it is said", () => {
    const wrong: string[] = [];
    for (const said of BACKCHANNELS) {
      for (const sensitivity of SENSITIVITIES) {
        const atEnd = classifyOverlap({ text: said, speechMs: speechMsOf(said), ended: true, sensitivity });
        if (atEnd.verdict !== "backchannel") wrong.push(`${said} (${sensitivity}, ended): ${atEnd.verdict} ${atEnd.reason}`);
        const during = verdict(said, speechMsOf(said), false, sensitivity);
        if (during !== "pending") wrong.push(`${said} (${sensitivity}, speaking): ${during}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(classifyOverlap({ text: "Mm-hmm.", speechMs: 500, ended: true, sensitivity: "medium" }).reason).toBe("backchannel 'mm-hmm'");
  });

  test("every interruption, at its end, is an interruption at every sensitivity, by its stop cue", () => {
    const wrong: string[] = [];
    for (const said of INTERRUPTIONS) {
      for (const sensitivity of SENSITIVITIES) {
        const atEnd = classifyOverlap({ text: said, speechMs: speechMsOf(said), ended: true, sensitivity });
        if (atEnd.verdict !== "interruption" || !atEnd.reason.startsWith("stop cue ")) wrong.push(`${said} (${sensitivity}): ${atEnd.verdict} ${atEnd.reason}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(classifyOverlap({ text: "wait, stop", speechMs: 700, ended: true, sensitivity: "low" }).reason).toBe("stop cue 'wait'");
    expect(classifyOverlap({ text: "hold on a second please", speechMs: 1500, ended: true, sensitivity: "low" }).reason).toBe("stop cue 'hold on'");
    expect(classifyOverlap({ text: "just a moment, let me find a pen", speechMs: 2000, ended: true, sensitivity: "low" }).reason).toBe("stop cue 'just a moment'");
  });

  test("an interruption's first word, as the first partial, is never a backchannel; a stop cue word interrupts at once", () => {
    const wrong: string[] = [];
    for (const said of INTERRUPTIONS) {
      const first = said.split(/[\s,]+/)[0];
      const stopWord = ["wait", "stop", "no", "sorry", "actually"].includes(first);
      for (const sensitivity of SENSITIVITIES) {
        const got = verdict(first, 250, false, sensitivity);
        if (got === "backchannel" || (stopWord && got !== "interruption")) wrong.push(`${first} (${sensitivity}): ${got}`);
      }
    }
    expect(wrong).toEqual([]);
    // "hold" of "hold on" waits for its second word on low and medium; high takes any word.
    expect(SENSITIVITIES.map((s) => verdict("hold", 250, false, s))).toEqual(["pending", "pending", "interruption"]);
  });

  test("a backchannel's first word (got of 'got it', I of 'I see') waits even on high sensitivity", () => {
    for (const first of ["got", "I", "all", "uh", "mm"]) expect([first, verdict(first, 250, false, "high")]).toEqual([first, "pending"]);
    expect(verdict("got", 250, true, "high")).toBe("interruption");
  });
});

describe("overlap classifier, limits per sensitivity", () => {
  test("backchannel words said for longer than the sensitivity's limit are a turn: 1.5 s low, 1.2 s medium, 0.8 s high", () => {
    const said = "yeah yeah okay right";
    expect(SENSITIVITIES.map((s) => verdict(said, 900, false, s))).toEqual(["pending", "pending", "interruption"]);
    expect(SENSITIVITIES.map((s) => verdict(said, 1300, false, s))).toEqual(["pending", "interruption", "interruption"]);
    expect(SENSITIVITIES.map((s) => verdict(said, 1600, true, s))).toEqual(["interruption", "interruption", "interruption"]);
    expect(classifyOverlap({ text: said, speechMs: 1300, ended: false, sensitivity: "medium" }).reason).toBe("1.3 s of backchannel words");
  });

  test("other words interrupt at 3 / 2 / 1 of them, or at 1.2 / 0.8 / 0.5 s of speech", () => {
    expect(SENSITIVITIES.map((s) => verdict("what about", 450, false, s))).toEqual(["pending", "interruption", "interruption"]);
    expect(SENSITIVITIES.map((s) => verdict("what about delivery", 700, false, s))).toEqual(["interruption", "interruption", "interruption"]);
    expect(classifyOverlap({ text: "what about delivery", speechMs: 700, ended: false, sensitivity: "low" }).reason).toBe("3 words");
    expect(SENSITIVITIES.map((s) => verdict("okay thanks", 600, false, s))).toEqual(["pending", "pending", "interruption"]);
    expect(SENSITIVITIES.map((s) => verdict("okay thanks", 900, false, s))).toEqual(["pending", "interruption", "interruption"]);
    expect(SENSITIVITIES.map((s) => verdict("okay thanks", 1250, false, s))).toEqual(["interruption", "interruption", "interruption"]);
    expect(classifyOverlap({ text: "okay thanks", speechMs: 1250, ended: false, sensitivity: "low" }).reason).toBe("1.3 s of speech");
  });

  test("once the caller stops: one other word interrupts on medium and high, low lets it pass; two interrupt everywhere", () => {
    expect(SENSITIVITIES.map((s) => verdict("thanks", 400, true, s))).toEqual(["backchannel", "interruption", "interruption"]);
    expect(classifyOverlap({ text: "thanks", speechMs: 400, ended: true, sensitivity: "low" }).reason).toBe("1 word on low sensitivity");
    expect(SENSITIVITIES.map((s) => verdict("which one", 500, true, s))).toEqual(["interruption", "interruption", "interruption"]);
    expect(SENSITIVITIES.map((s) => verdict("can you repeat the price", 1100, true, s))).toEqual(["interruption", "interruption", "interruption"]);
  });

  test("hesitations count for nothing: 'um' waits; 'uh-huh', 'oh okay' and 'that’s right' (a curly apostrophe) are backchannels", () => {
    expect(SENSITIVITIES.map((s) => verdict("um", 300, false, s))).toEqual(["pending", "pending", "pending"]);
    expect(SENSITIVITIES.map((s) => verdict("uh-huh", 500, true, s))).toEqual(["backchannel", "backchannel", "backchannel"]);
    expect(SENSITIVITIES.map((s) => verdict("Oh, okay.", 600, true, s))).toEqual(["backchannel", "backchannel", "backchannel"]);
    expect(SENSITIVITIES.map((s) => verdict("That’s right.", 600, true, s))).toEqual(["backchannel", "backchannel", "backchannel"]);
    expect(SENSITIVITIES.map((s) => verdict("um, can I ask", 600, false, s))).toEqual(["interruption", "interruption", "interruption"]);
  });

  test("a stop cue anywhere interrupts, from its first word", () => {
    for (const said of ["okay but", "yeah, hang on", "right, sorry", "excuse me"]) {
      for (const sensitivity of SENSITIVITIES) expect([said, sensitivity, verdict(said, 400, false, sensitivity)]).toEqual([said, sensitivity, "interruption"]);
    }
  });

  test("speech with no words: noise under 300 ms once ended, pending, then an interruption at 1.5 / 1.0 / 0.7 s", () => {
    expect(classifyOverlap({ text: "", speechMs: 200, ended: true, sensitivity: "high" })).toEqual({ verdict: "backchannel", reason: "noise" });
    expect(SENSITIVITIES.map((s) => verdict("", 200, false, s))).toEqual(["pending", "pending", "pending"]);
    expect(SENSITIVITIES.map((s) => verdict("", 600, true, s))).toEqual(["pending", "pending", "pending"]);
    expect(SENSITIVITIES.map((s) => verdict("", 750, false, s))).toEqual(["pending", "pending", "interruption"]);
    expect(SENSITIVITIES.map((s) => verdict("", 1000, false, s))).toEqual(["pending", "interruption", "interruption"]);
    expect(SENSITIVITIES.map((s) => verdict("", 1500, false, s))).toEqual(["interruption", "interruption", "interruption"]);
    expect(classifyOverlap({ text: "", speechMs: 1000, ended: false, sensitivity: "medium" }).reason).toBe("1.0 s of speech, no words");
  });
});
