import type { AgentConfig } from "../agent-config.ts";
import { spokenAnswer } from "../../knowledge/answer.ts";
import type { ChatMessage, ToolDefinition } from "../../providers/openai/chat.ts";
import { FlowEngine, type FlowAction, type FlowState } from "./flow/engine.ts";
import { containsPhrase } from "./flow/slots.ts";
import { llmTurn, type ToolOutcome } from "./llm/brain.ts";
import type { BrainServices } from "./services.ts";
import { renderTemplate } from "../../lib/templates.ts";

/** Where a conversation with an agent stands; plain JSON, stored between turns. */
export type ConversationState =
  | { brain: "flow"; flow: FlowState; ended: boolean }
  | { brain: "llm"; messages: ChatMessage[]; ended: boolean };

export interface ToolCallRecord {
  name: string;
  arguments: Record<string, unknown>;
  ok: boolean;
  result: unknown;
}

export interface AgentTurn {
  say: string[];
  action: FlowAction | null;
  toolCalls: ToolCallRecord[];
  ended: boolean;
  /** A provider failure the agent covered with its fallback line. */
  error: string | null;
}

export type BrainEvent =
  | { type: "text"; text: string; final: boolean }
  | { type: "tool"; call: ToolCallRecord }
  | { type: "error"; message: string };

/**
 * Where the conversation happens. `call` (the default): a phone or browser voice call, or the playground
 * rehearsing one. `website_chat`: a widget's text chat, which shows the widget's own greeting and is no
 * phone line (the agent's first_message is a call's greeting, and is not said there).
 */
export type ConversationChannel = "call" | "website_chat";

export interface ConversationContext {
  workspaceId: string;
  agentId: string;
  callId: string | null;
  variables: Record<string, unknown>;
  channel?: ConversationChannel;
}

const DEFAULT_FALLBACK = "I'm sorry, I'm having trouble right now. Could you say that again?";
const GOODBYE: Record<ConversationChannel, string> = { call: "Thank you for calling. Goodbye!", website_chat: "Thank you for chatting. Goodbye!" };
/** Told to a model in a website chat, after the agent's own prompt (which is usually written for calls). */
const WEBSITE_CHAT_NOTE = "This conversation is a text chat on a website, not a phone call: answer in writing, and do not speak as a phone line (no \"thank you for calling\").";

/**
 * One agent, either brain, behind one interface: open the conversation, then feed it what the
 * caller says. The playground chat and the voice runtime both drive conversations through this.
 */
export class AgentConversation {
  constructor(private services: BrainServices, private config: AgentConfig, private context: ConversationContext) {}

  initialState(): ConversationState {
    if (this.config.brain.type === "flow") return { brain: "flow", flow: this.flowEngine().initialState(), ended: false };
    const system = renderTemplate(this.config.system_prompt, this.context.variables);
    const messages: ChatMessage[] = system ? [{ role: "system", content: system }] : [];
    if (this.channel === "website_chat") messages.push({ role: "system", content: WEBSITE_CHAT_NOTE });
    return { brain: "llm", messages, ended: false };
  }

  private get channel(): ConversationChannel {
    return this.context.channel ?? "call";
  }

  /** The greeting (when the agent speaks first on a call) and whatever the flow says before it listens. */
  async open(state: ConversationState): Promise<AgentTurn> {
    const turn = emptyTurn();
    const greets = this.channel === "call" && this.config.first_message_mode === "agent_first" && this.config.first_message;
    const greeting = greets ? renderTemplate(this.config.first_message!, this.context.variables) : null;
    if (greeting) turn.say.push(greeting);
    if (state.brain === "llm") {
      if (greeting) state.messages.push({ role: "assistant", content: greeting });
      return turn;
    }
    return this.absorb(turn, state, await this.flowEngine().start(state.flow));
  }

  async reply(state: ConversationState, input: { text?: string; digits?: string }): Promise<AgentTurn> {
    const turn = emptyTurn();
    let text = "";
    const flush = () => {
      if (text.trim()) turn.say.push(text.trim());
      text = "";
    };
    const stream = this.replyStream(state, input);
    for (;;) {
      const next = await stream.next();
      if (next.done) {
        flush();
        turn.action = next.value.action;
        turn.ended = next.value.ended;
        return turn;
      }
      const event = next.value;
      if (event.type === "text") {
        text += event.text;
        if (event.final) flush();
      } else if (event.type === "tool") turn.toolCalls.push(event.call);
      else if (event.type === "error") turn.error = event.message;
    }
  }

  /**
   * The same turn as a stream, for the voice loop: text as it forms (model tokens, or a flow's whole
   * sentences with `final`), tool calls and errors as they happen; the action when it is over.
   * `beforeTool` is awaited before a model's tool runs: a reply prepared before the caller has surely
   * finished must not act (book, charge, hang up) until the turn is confirmed.
   */
  async *replyStream(
    state: ConversationState,
    input: { text?: string; digits?: string },
    signal?: AbortSignal,
    beforeTool?: () => Promise<void>,
  ): AsyncGenerator<BrainEvent, { action: FlowAction | null; ended: boolean }> {
    if (state.ended) return { action: null, ended: true };
    // `ended` is set before the last words are yielded: a caller who cuts them off cannot undo the ending.
    if (input.text && this.config.turn_taking.end_call_phrases.some((phrase) => containsPhrase(input.text!, phrase))) {
      state.ended = true;
      yield { type: "text", text: GOODBYE[this.channel], final: true };
      return { action: { type: "end" }, ended: true };
    }
    if (state.brain === "flow") {
      const flowTurn = await this.flowEngine().input(state.flow, input);
      state.ended = state.flow.done;
      for (const call of flowTurn.toolCalls) yield { type: "tool", call: { name: call.tool_id, arguments: call.arguments, ok: call.ok, result: call.result } };
      for (const text of flowTurn.say) yield { type: "text", text, final: true };
      return { action: flowTurn.action, ended: state.ended };
    }
    return yield* this.llmStream(state, input.text ?? (input.digits ? `(keyed ${input.digits})` : ""), signal, beforeTool);
  }

  /**
   * The caller cut the agent off: the model's history keeps only what was heard (as the transcript
   * does), so its next answer does not build on words the caller never got.
   */
  noteInterruption(state: ConversationState, heard: string): void {
    if (state.brain !== "llm") return;
    const last = state.messages.at(-1);
    if (last?.role === "assistant" && !last.tool_calls?.length) {
      if (heard) last.content = heard;
      else state.messages.pop();
    } else if (heard) state.messages.push({ role: "assistant", content: heard });
  }

  private absorb(turn: AgentTurn, state: Extract<ConversationState, { brain: "flow" }>, flowTurn: Awaited<ReturnType<FlowEngine["start"]>>): AgentTurn {
    turn.say.push(...flowTurn.say);
    turn.action = flowTurn.action;
    turn.toolCalls.push(...flowTurn.toolCalls.map((c) => ({ name: c.tool_id, arguments: c.arguments, ok: c.ok, result: c.result })));
    state.ended = state.flow.done;
    turn.ended = state.ended;
    return turn;
  }

  private flowEngine(): FlowEngine {
    if (this.config.brain.type !== "flow") throw new Error("not a flow agent");
    return new FlowEngine(
      this.config.brain.flow,
      { variables: this.context.variables, knowledgeBaseIds: this.config.knowledge_base_ids, transferNumber: this.config.transfer_number },
      {
        answer: async (question, kbs, minScore) => {
          const [best] = await this.services.searchKnowledge(this.context.workspaceId, kbs, question, { topK: 1, minScore: minScore ?? 0.15 });
          return best ? spokenAnswer(best.text, question) : null;
        },
        callTool: (toolId, args) => this.services.invokeTool(this.context.workspaceId, toolId, args, { agentId: this.context.agentId, callId: this.context.callId }),
        now: () => new Date(this.services.now()),
      },
    );
  }

  private async *llmStream(
    state: Extract<ConversationState, { brain: "llm" }>,
    text: string,
    signal?: AbortSignal,
    beforeTool?: () => Promise<void>,
  ): AsyncGenerator<BrainEvent, { action: FlowAction | null; ended: boolean }> {
    const brain = this.config.brain;
    if (brain.type !== "llm") throw new Error("not an llm agent");
    state.messages.push({ role: "user", content: text });
    const connection = this.services.languageModel(this.context.workspaceId, brain.provider_id);
    const fallback = brain.fallback_message ?? DEFAULT_FALLBACK;
    if (!connection) {
      yield { type: "error", message: "the agent's language-model connection no longer exists" };
      yield { type: "text", text: fallback, final: true };
      return { action: null, ended: false };
    }
    const records: ToolCallRecord[] = [];
    const { definitions, execute } = this.llmTools(records, beforeTool, signal);
    let action: FlowAction | null = null;
    try {
      for await (const event of llmTurn(connection, brain, state.messages, definitions, execute, signal)) {
        if (event.type === "text") yield { type: "text", text: event.delta, final: false };
        else if (event.type === "tool") yield { type: "tool", call: records.at(-1) ?? { name: event.name, arguments: event.arguments, ok: event.outcome.ok, result: event.outcome.content } };
        else if (event.type === "action") {
          action = event.action;
          state.ended = true;
        }
      }
    } catch (error) {
      // Cancelled by the caller (barge-in, hang-up): not a provider failure, and nothing more to say.
      if (signal?.aborted) return { action: null, ended: state.ended };
      yield { type: "error", message: (error as Error).message };
      yield { type: "text", text: ` ${fallback}`, final: true };
      return { action: null, ended: false };
    }
    yield { type: "text", text: "", final: true };
    return { action, ended: state.ended };
  }

  /** The model's tools: the agent's webhook tools plus the built-ins it enabled. */
  private llmTools(records: ToolCallRecord[], beforeTool?: () => Promise<void>, signal?: AbortSignal): { definitions: ToolDefinition[]; execute: (name: string, args: Record<string, unknown>) => Promise<ToolOutcome> } {
    const toolIds = this.config.tools.flatMap((t) => ("tool_id" in t ? [t.tool_id] : []));
    const functions = this.services.tools(this.context.workspaceId, toolIds);
    const builtins = new Set(this.config.tools.flatMap((t) => (t.type === "function" ? [] : [t.type])));
    const definitions: ToolDefinition[] = functions.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
    const builtin = (name: string, description: string, properties: Record<string, unknown> = {}, required: string[] = []) =>
      definitions.push({ type: "function", function: { name, description, parameters: { type: "object", properties, required } } });
    if (builtins.has("end_call")) builtin("end_call", "End the call when the conversation is finished or the caller asks to hang up.", { reason: { type: "string" } });
    if (builtins.has("transfer_call")) builtin("transfer_call", "Transfer the caller to a human colleague.", { reason: { type: "string" } });
    if (builtins.has("knowledge_search")) {
      builtin("knowledge_search", "Search the company's knowledge base for facts to answer the caller.", { query: { type: "string" } }, ["query"]);
    }
    if (builtins.has("send_dtmf")) builtin("send_dtmf", "Press keys on the phone keypad (e.g. to navigate a phone menu).", { digits: { type: "string", pattern: "^[0-9*#]+$" } }, ["digits"]);

    const execute = async (name: string, args: Record<string, unknown>): Promise<ToolOutcome> => {
      if (beforeTool) {
        await beforeTool();
        signal?.throwIfAborted();
      }
      const record = (ok: boolean, result: unknown) => records.push({ name, arguments: args, ok, result });
      const fn = functions.find((tool) => tool.name === name);
      if (fn) {
        const invocation = await this.services.invokeTool(this.context.workspaceId, fn.id, args, { agentId: this.context.agentId, callId: this.context.callId });
        record(invocation.ok, invocation.result);
        return { ok: invocation.ok, content: JSON.stringify(invocation.result) };
      }
      switch (name) {
        case "end_call":
          record(true, "ending");
          return { ok: true, content: "The call will end after your last words.", action: { type: "end" } };
        case "transfer_call":
          record(true, this.config.transfer_number);
          return { ok: true, content: "Transferring now.", action: { type: "transfer", number: this.config.transfer_number ?? undefined } };
        case "knowledge_search": {
          const hits = await this.services.searchKnowledge(this.context.workspaceId, this.config.knowledge_base_ids, String(args.query ?? ""), { topK: 3 });
          record(true, hits.map((h) => h.chunk_id));
          return { ok: true, content: hits.length ? hits.map((h, i) => `[${i + 1}] ${h.text}`).join("\n\n") : "Nothing relevant was found." };
        }
        case "send_dtmf":
          record(true, args.digits);
          return { ok: true, content: `Pressed ${String(args.digits ?? "")}.` };
        default:
          record(false, "unknown tool");
          return { ok: false, content: `There is no tool called ${name}.` };
      }
    };
    return { definitions, execute };
  }
}

function emptyTurn(): AgentTurn {
  return { say: [], action: null, toolCalls: [], ended: false, error: null };
}
