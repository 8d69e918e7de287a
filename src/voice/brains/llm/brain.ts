import type { ProviderConnection } from "../../../providers/connection.ts";
import { asProviderError, streamChat, type ChatMessage, type ToolDefinition } from "../../../providers/openai/chat.ts";
import type { FlowAction } from "../flow/engine.ts";

export interface LlmSettings {
  model: string;
  temperature?: number;
  max_tokens?: number;
}

export interface ToolOutcome {
  /** What the model reads back as the tool's result. */
  content: string;
  /** Built-ins such as end_call and transfer_call end the conversation. */
  action?: FlowAction;
  ok: boolean;
}

export type LlmEvent =
  | { type: "text"; delta: string }
  | { type: "tool"; name: string; arguments: Record<string, unknown>; outcome: ToolOutcome }
  | { type: "action"; action: FlowAction };

/** Rounds of tool calls one caller turn may take before the model must answer in words. */
const MAX_TOOL_ROUNDS = 5;

/**
 * The language-model brain for one turn: streams the reply, runs the tools the model asks for,
 * feeds their results back, and repeats until the model answers in words. `messages` is updated in
 * place so the conversation keeps its history.
 */
export async function* llmTurn(
  connection: ProviderConnection,
  settings: LlmSettings,
  messages: ChatMessage[],
  tools: ToolDefinition[],
  executeTool: (name: string, args: Record<string, unknown>) => Promise<ToolOutcome>,
  signal?: AbortSignal,
): AsyncGenerator<LlmEvent> {
  for (let round = 0; round <= MAX_TOOL_ROUNDS; round++) {
    let text = "";
    let calls: { id: string; function: { name: string; arguments: string } }[] = [];
    try {
      const offered = round < MAX_TOOL_ROUNDS ? tools : [];
      for await (const chunk of streamChat(connection, { model: settings.model, messages, tools: offered, temperature: settings.temperature, max_tokens: settings.max_tokens }, signal)) {
        if (chunk.type === "text") {
          text += chunk.delta;
          yield chunk;
        } else if (chunk.type === "tool_calls") calls = chunk.calls;
      }
    } catch (error) {
      throw asProviderError(error);
    }
    messages.push({ role: "assistant", content: text || null, ...(calls.length ? { tool_calls: calls.map((c) => ({ ...c, type: "function" as const })) } : {}) });
    if (calls.length === 0) return;
    let action: FlowAction | undefined;
    for (const call of calls) {
      let args: Record<string, unknown> = {};
      try {
        args = call.function.arguments ? JSON.parse(call.function.arguments) : {};
      } catch {
        args = {};
      }
      const outcome = await executeTool(call.function.name, args);
      yield { type: "tool", name: call.function.name, arguments: args, outcome };
      messages.push({ role: "tool", tool_call_id: call.id, content: outcome.content });
      action ??= outcome.action;
    }
    if (action) {
      yield { type: "action", action };
      return;
    }
  }
}
