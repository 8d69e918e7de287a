import type { Static } from "elysia";
import type { ChatMessage } from "../../../providers/openai/chat.ts";
import type { ModelCaller as ModelCallerDefinition, TranscriptTurn } from "../definition.ts";
import type { CallerVoice } from "./caller-voice.ts";
import type { LanguageModel } from "./deps.ts";
import { completeChat } from "./language-model.ts";
import { AGENT_DONE_GAP_MS, AGENT_REPLY_WAIT_MS } from "./script-caller.ts";
import type { TestCallerLeg } from "./test-caller-leg.ts";

/** What the model says when its goal is reached; stripped before the words are spoken. */
export const GOAL_MARKER = "[GOAL REACHED]";
const DEFAULT_MAX_TURNS = 10;

/**
 * A caller played by a language model: after each agent turn it asks the model for the caller's next
 * line given the conversation so far (the call's transcript), speaks it, and hangs up once the model
 * says the goal is reached or its turns are used up.
 */
export class ModelCaller {
  goalReached = false;
  failure: string | null = null;
  private turnsTaken = 0;
  private preparing = false;
  private ownEndMs = 0;
  private leaving = false;

  constructor(
    private readonly definition: Static<typeof ModelCallerDefinition>,
    private readonly model: LanguageModel,
    private readonly voice: CallerVoice,
    /** The conversation so far, as the call's transcript has it. */
    private readonly transcript: () => Static<typeof TranscriptTurn>[],
    private readonly signal: AbortSignal,
  ) {}

  readonly tick = (line: TestCallerLeg): void => {
    if (this.preparing || line.busy) return;
    // Its last words have been played: a caller whose goal is reached says goodbye and hangs up.
    if (this.leaving) return line.hangUpAsCaller();
    if (!line.agentReplied(this.ownEndMs, AGENT_DONE_GAP_MS, AGENT_REPLY_WAIT_MS)) return;
    if (this.turnsTaken >= (this.definition.max_turns ?? DEFAULT_MAX_TURNS)) return line.hangUpAsCaller();
    this.preparing = true;
    this.turnsTaken++;
    this.speakNext(line)
      .catch((error: Error) => {
        this.failure = `the model-played caller could not go on at its turn ${this.turnsTaken}: ${error.message}`;
        line.hangUpAsCaller();
      })
      .finally(() => (this.preparing = false));
  };

  private async speakNext(line: TestCallerLeg): Promise<void> {
    const opening = this.turnsTaken === 1 ? this.definition.opening : undefined;
    let text = opening ?? (await completeChat(this.model, this.definition.model, this.messages(), this.signal));
    if (text.includes(GOAL_MARKER)) {
      this.goalReached = true;
      this.leaving = true;
      text = text.replaceAll(GOAL_MARKER, " ").replace(/\s+/g, " ").trim();
    }
    this.ownEndMs = text ? (await this.voice.say(line, text)).endMs : line.elapsedMs;
  }

  private messages(): ChatMessage[] {
    const { persona, goal } = this.definition;
    const system = [
      "You are the caller on a phone call with a company's voice agent. Stay in character; never say you are an AI.",
      `Who you are: ${persona}`,
      `What you want from this call: ${goal}`,
      "Reply with only the words you say next, one short spoken turn, no stage directions.",
      `Once your goal has been reached, say a short goodbye and end your reply with ${GOAL_MARKER}.`,
    ].join("\n");
    const turns: ChatMessage[] = this.transcript().map((turn) => ({ role: turn.role === "agent" ? "user" : "assistant", content: turn.text }));
    // Chat models expect the other side (here the agent) to open the conversation.
    if (!turns.length || turns[0].role !== "user") turns.unshift({ role: "user", content: "(the call is answered; the agent has said nothing yet)" });
    return [{ role: "system", content: system }, ...turns];
  }
}
