// The flow engine on its own, its knowledge bases answered by a table: how an answer step treats
// words that name a route of the menu the caller came from.
import { describe, expect, test } from "bun:test";
import { FlowEngine, type FlowDeps } from "../../../../src/voice/brains/flow/engine.ts";
import type { FlowDefinition } from "../../../../src/voice/brains/flow/schema.ts";

// The dashboard's receptionist, with a second menu that also leads to the question step.
const FLOW: FlowDefinition = {
  start: "menu",
  nodes: {
    menu: { type: "route", routes: [{ keywords: ["hours", "open"], next: "hours" }, { keywords: ["question"], next: "question" }, { keywords: ["bye", "no"], next: "goodbye" }], default: "question" },
    hours: { type: "say", text: "We are open nine to six.", next: "more" },
    question: { type: "answer", text: "What would you like to know?", fallback: "I don't have an answer to that.", next: "more" },
    more: { type: "route", text: "Anything else?", routes: [{ keywords: ["parking"], next: "parking" }, { keywords: ["no"], next: "goodbye" }], default: "question" },
    parking: { type: "say", text: "Park behind the building.", next: "more" },
    goodbye: { type: "end", text: "Goodbye!" },
  },
};

/** A conversation whose knowledge bases know these answers (by a word of the question). */
function conversation(known: Record<string, string> = {}) {
  const deps: FlowDeps = {
    answer: async (question) => Object.entries(known).find(([word]) => question.includes(word))?.[1] ?? null,
    callTool: async () => ({ ok: true, result: null }),
    now: () => new Date(0),
  };
  const engine = new FlowEngine(FLOW, { variables: {}, knowledgeBaseIds: ["kb_1"], transferNumber: null }, deps);
  const state = engine.initialState();
  return { state, open: () => engine.start(state), say: async (text: string) => (await engine.input(state, { text })).say };
}

describe("flow engine: an answer step after a menu", () => {
  test("words it has no answer for that name one of the menu's routes go there (the caller changed topic)", async () => {
    const { open, say, state } = conversation();
    await open();
    expect(await say("what do you use")).toEqual(["What would you like to know?"]); // misheard: the menu's default
    expect(await say("what are your opening hours")).toEqual(["We are open nine to six.", "Anything else?"]);
    expect(state.node).toBe("more");
    // Came from the second menu: its routes apply, and the first menu's no longer do.
    expect(await say("one more thing")).toEqual(["What would you like to know?"]);
    expect(await say("where do I leave the car, is there parking")).toEqual(["Park behind the building.", "Anything else?"]);
    await say("something else");
    expect(await say("when are you open")).toEqual(["I don't have an answer to that.", "Anything else?"]);
  });

  test("what the knowledge bases answer is answered, keywords or not", async () => {
    const { open, say } = conversation({ pool: "The pool opens at seven." });
    await open();
    await say("what do you use");
    expect(await say("is the pool open on sundays")).toEqual(["The pool opens at seven.", "Anything else?"]);
  });

  test("a route back to the answer step itself is not taken, and words naming no route get the fallback", async () => {
    const { open, say } = conversation();
    await open();
    await say("I have a question");
    expect(await say("a question about the wifi")).toEqual(["I don't have an answer to that.", "Anything else?"]);
    await say("something else");
    expect(await say("how fast is the wifi")).toEqual(["I don't have an answer to that.", "Anything else?"]);
  });


  test("a question it cannot answer never hangs up, whatever word it holds (a route to an end step is not a detour)", async () => {
    const { open, say, state } = conversation();
    await open();
    await say("I have a question");
    expect(await say("is there no parking for bikes")).toEqual(["I don't have an answer to that.", "Anything else?"]);
    expect(state.done).toBe(false);
    // At the menu itself, "no" still ends the call.
    expect(await say("no")).toEqual(["Goodbye!"]);
  });
});
