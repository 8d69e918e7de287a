import type { ScriptTurnDefinition } from "../definition.ts";
import type { CallerVoice } from "./caller-voice.ts";
import type { TestCallerLeg } from "./test-caller-leg.ts";

/** The agent's turn is over once its voice has paused this long (longer than the gap between its sentences). */
export const AGENT_DONE_GAP_MS = 900;
/** An agent that says nothing this long after the caller is not going to: the caller goes on. */
export const AGENT_REPLY_WAIT_MS = 6000;
/** After its last turn the caller hangs up once the agent has been quiet this long. */
export const FINAL_SILENCE_MS = 5000;
const DEFAULT_BARGE_IN_AFTER_MS = 800;

/**
 * A scripted caller, turn by turn (definition.ts ScriptTurn): each say/audio/dtmf/hangup waits for the
 * agent to answer what came before (a greeting first), unless a pause came before it (the caller goes
 * on mid-turn) or it barges in; silence_ms waits for the agent, then says nothing that long. After the
 * last turn it listens and hangs up after FINAL_SILENCE_MS of quiet, unless the agent ends the call.
 */
export class ScriptCaller {
  /** Why the caller could not go on (its speech could not be made), else null. */
  failure: string | null = null;
  private next = 0;
  private preparing = false;
  private awaitingAgent = true;
  /** When what the caller last did ends on its timeline: the agent's answer comes after it. */
  private ownEndMs = 0;
  private waitUntilMs: number | null = null;

  constructor(private readonly turns: ScriptTurnDefinition[], private readonly voice: CallerVoice) {}

  readonly tick = (line: TestCallerLeg): void => {
    if (this.preparing || line.busy) return;
    if (this.waitUntilMs !== null) {
      if (line.elapsedMs < this.waitUntilMs) return;
      this.waitUntilMs = null;
    }
    const turn = this.turns[this.next];
    if (!turn) {
      if (line.quietFor(this.ownEndMs) >= FINAL_SILENCE_MS) line.hangUpAsCaller();
      return;
    }
    if (turn.pause_ms !== undefined) {
      this.next++;
      this.waitUntilMs = line.elapsedMs + turn.pause_ms;
      this.awaitingAgent = false;
      return;
    }
    if (this.awaitingAgent && !this.agentAnswered(line, turn)) return;
    this.next++;
    this.awaitingAgent = true;
    if (turn.silence_ms !== undefined) {
      // A reprompt during the silence counts as the agent's answer to it.
      this.ownEndMs = line.elapsedMs;
      this.waitUntilMs = line.elapsedMs + turn.silence_ms;
    } else if (turn.hangup) line.hangUpAsCaller();
    else if (turn.dtmf !== undefined) this.ownEndMs = line.press(turn.dtmf);
    else if (turn.audio !== undefined) this.ownEndMs = this.voice.play(line, turn.audio).endMs;
    else if (turn.say !== undefined) this.say(line, turn.say, turn.voice);
  };

  private agentAnswered(line: TestCallerLeg, turn: ScriptTurnDefinition): boolean {
    const speaks = turn.say !== undefined || turn.audio !== undefined;
    if (speaks && turn.barge_in && line.agentTalking && line.lastAgentAudioMs > this.ownEndMs) {
      return line.elapsedMs - line.agentSpeechStartMs >= (turn.barge_in_after_ms ?? DEFAULT_BARGE_IN_AFTER_MS);
    }
    return line.agentReplied(this.ownEndMs, AGENT_DONE_GAP_MS, AGENT_REPLY_WAIT_MS);
  }

  private say(line: TestCallerLeg, text: string, voice: string | undefined): void {
    this.preparing = true;
    this.voice
      .say(line, text, voice)
      .then((span) => (this.ownEndMs = span.endMs))
      .catch((error: Error) => {
        this.failure = `the caller could not speak turn ${this.next - 1}: ${error.message}`;
        line.hangUpAsCaller();
      })
      .finally(() => (this.preparing = false));
  }
}
