// Whole phone conversations with flow agents (no language model): the simulated callee speaks real
// synthesised audio, the call runs through the full loop, and the test reads what a user would.
import { describe, expect, test } from "bun:test";
import { pocketsphinxAvailability } from "../../../src/voice/speech/builtin/index.ts";
import { CALL_TIMEOUT, conversationFile, farEnd, formatTranscript } from "../../helpers/call-driver.ts";

const { calls } = conversationFile("flows");

const HOURS = "# Opening hours\n\nWe are open Monday to Friday from 9am to 6pm. On Saturdays we open at 10am and close at 2pm. We are closed on Sundays and public holidays.";

/** Asks for the caller's name, then answers questions from the knowledge base until they say goodbye. */
function helpDeskFlow() {
  return {
    start: "name",
    nodes: {
      name: { type: "ask", text: "May I have your name?", slot: { name: "name", type: "string" }, next: "question" },
      question: { type: "answer", text: "Thanks {{name}}. What would you like to know?", fallback: "Sorry, I do not know that.", next: "question" },
    },
  };
}

async function helpDeskAgent(name: string) {
  const kb = await calls().createKnowledgeBase(`${name} hours`, HOURS);
  return calls().createAgent({
    name,
    first_message: "Hello, this is Acme.",
    brain: { type: "flow", flow: helpDeskFlow() },
    knowledge_base_ids: [kb],
    extraction: [{ name: "name", type: "string", description: "The caller's name" }],
  });
}

describe.concurrent("flow agents on the phone", () => {
  test("greets, fills a slot, answers from the knowledge base, ends on goodbye; the slot is extracted", async () => {
    const agent = await helpDeskAgent("Help desk");
    const callId = await calls().place(agent.id, { lines: ["My name is Ada", "When are you open on Saturday?", "Thank you goodbye"] });
    const call = await calls().finalized(callId);
    const transcript = call.transcript;
    const lines = formatTranscript(transcript).split("\n");
    expect(lines.filter((_, i) => i !== 4)).toEqual([
      "agent: Hello, this is Acme. May I have your name?",
      "caller: My name is Ada",
      "agent: Thanks Ada. What would you like to know?",
      "caller: When are you open on Saturday?",
      "caller: Thank you goodbye",
      "agent: Thank you for calling. Goodbye!",
    ]);
    expect(transcript[4]).toMatchObject({ role: "agent", interrupted: false });
    expect(transcript[4].text).toMatch(/Saturdays we open at 10am and close at 2pm/);
    // Turns sit on one audio timeline, in order, without overlap.
    for (let i = 1; i < transcript.length; i++) expect(transcript[i].start_ms).toBeGreaterThanOrEqual(transcript[i - 1].end_ms);
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup", extracted: { name: "Ada" } });
    expect(call.summary).toContain("name: Ada");
    expect(call.duration_ms).toBeGreaterThanOrEqual(transcript.at(-1).end_ms);

    const far = farEnd(callId);
    expect(far.callee!.spoken.map((line) => line.text)).toEqual(["My name is Ada", "When are you open on Saturday?", "Thank you goodbye"]);
    expect(far.callee!.agentFramesHeard * 20).toBeGreaterThanOrEqual(transcript.at(-1).end_ms - transcript[0].start_ms - 20_000);
    expect(far.ended).toBe("local_hangup");

    const timeline = await calls().timeline(callId);
    expect(timeline.find((e) => e.type === "engines")?.data).toMatchObject({ tts: "builtin:flite", stt: "simulated" });
    expect(timeline.find((e) => e.type === "amd")?.data.verdict).toBe("human");
    const latencies = timeline.filter((e) => e.type === "latency");
    expect(latencies).toHaveLength(3);
    for (const latency of latencies) {
      // The wait the endpointing chose from the words (the agent's 500 ms is the neutral one; 300–2,000 ms around it), and why.
      expect([300, 500, 1250, 2000]).toContain(latency.data.endpointing_ms);
      expect(latency.data.endpointing).toMatch(/^(complete|unknown|likely_unfinished|unfinished): ./);
      expect(latency.data.end_to_end_ms).toBeGreaterThanOrEqual(0);
      expect(latency.data.end_to_end_ms).toBeLessThan(3000);
    }
    expect(timeline.filter((e) => e.type === "status").map((e) => e.data.status)).toEqual(["queued", "ringing", "in_progress", "completed"]);
  }, CALL_TIMEOUT);

  test("keys pressed on the phone (in-band DTMF) fill a digits slot, then the flow transfers", async () => {
    const agent = await calls().createAgent({
      name: "Accounts",
      brain: {
        type: "flow",
        flow: {
          start: "account",
          nodes: {
            account: { type: "ask", text: "Please key in your account number, then the pound key.", slot: { name: "account", type: "digits", length: 4 }, next: "connect" },
            connect: { type: "transfer", text: "Thank you, account {{account}}. Connecting you now.", number: "+15550001111" },
          },
        },
      },
      extraction: [{ name: "account", type: "string", description: "The account number" }],
    });
    const callId = await calls().place(agent.id, { behaviour: "answer", digits: "4217#" });
    const call = await calls().finalized(callId);
    expect(call).toMatchObject({ status: "transferred", end_reason: "transferred", transferred_to: "+15550001111", extracted: { account: "4217" } });
    expect(formatTranscript(call.transcript)).toBe(
      ["agent: Please key in your account number, then the pound key.", "caller: [keyed 4217]", "agent: Thank you, account 4217. Connecting you now."].join("\n"),
    );
    // The keyed turn spans the keys, from the first to the pound key.
    const keyed = call.transcript[1];
    expect(keyed.end_ms - keyed.start_ms).toBeGreaterThanOrEqual(400);
    expect(keyed.start_ms).toBeGreaterThanOrEqual(call.transcript[0].end_ms);
    const timeline = await calls().timeline(callId);
    expect(timeline.filter((e) => e.type === "dtmf").map((e) => `${e.data.digit}/${e.data.how}`)).toEqual(["4/in-band", "2/in-band", "1/in-band", "7/in-band", "#/in-band"]);
    expect(timeline.find((e) => e.type === "transfer")?.data).toEqual({ to: "+15550001111", reason: "the agent transferred the call" });
    expect(farEnd(callId).transferredTo).toBe("+15550001111");
  }, CALL_TIMEOUT);

  const sphinx = pocketsphinxAvailability();
  if (!sphinx.available) console.log(`skipping the PocketSphinx conversation: ${sphinx.reason}`);
  test.skipIf(!sphinx.available)("the same conversation with real offline recognition (PocketSphinx at 8 kHz) still reaches its end", async () => {
    const agent = await helpDeskAgent("Help desk by ear");
    const callId = await calls().place(agent.id, { lines: ["My name is Ada", "When are you open on Saturday?", "goodbye"], recognition: "agent" });
    const call = await calls().finalized(callId);
    const timeline = await calls().timeline(callId);
    expect(timeline.find((e) => e.type === "engines")?.data).toEqual({ tts: "builtin:flite", stt: "builtin:pocketsphinx" });
    expect(call).toMatchObject({ status: "completed", end_reason: "agent_hangup" });
    const callerTurns = call.transcript.filter((t: any) => t.role === "caller");
    expect(callerTurns.length).toBeGreaterThanOrEqual(2);
    expect(callerTurns.at(-1).text).toMatch(/goodbye/);
    expect(call.transcript.at(-1)).toMatchObject({ role: "agent", text: "Thank you for calling. Goodbye!" });
    // Whatever it made of the name, the flow moved on past the question because something was heard.
    expect(call.transcript[2]).toMatchObject({ role: "agent" });
    expect(call.transcript[2].text).toStartWith("Thanks ");
  }, CALL_TIMEOUT);
});
