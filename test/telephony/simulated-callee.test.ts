// The simulated callee speaks with a real speech engine; when that engine fails, its line fails with
// the reason (the call ends failed, saying why) instead of a promise nobody awaits.
import { expect, test } from "bun:test";
import { SimulatedCallee, simScript } from "../../src/telephony/simulated/callee.ts";
import type { TextToSpeech } from "../../src/voice/speech/types.ts";

const brokenSpeech: TextToSpeech = {
  id: "test:broken",
  synthesize: async function* () {
    yield* [];
    throw new Error("the engine crashed");
  },
  voices: async () => [],
};

test("a callee whose speech cannot be synthesised fails its line with the reason", async () => {
  const failures: string[] = [];
  const callee = new SimulatedCallee(simScript({ behaviour: "voicemail", greeting: "Please leave a message." }), brokenSpeech, () => {}, () => {}, (detail) => failures.push(detail));
  callee.nextFrame(); // a voicemail greets at once
  await Bun.sleep(5);
  expect(failures).toEqual(["the simulated callee could not speak: the engine crashed"]);
  expect(callee.spoken).toEqual([]);
});
