import { streamChat, type ChatMessage } from "../../../providers/openai/chat.ts";
import type { LanguageModel } from "./deps.ts";

/** When a connection names no chat model (settings.chat_model) and the case none either: OpenAI's small one. */
const FALLBACK_MODEL = "gpt-4o-mini";

/**
 * A whole chat completion's text (the caller and the judge want the full answer, not its stream), at
 * temperature 0: a suite run twice against the same agent should play and judge the same way.
 */
export async function completeChat(model: LanguageModel, modelName: string | undefined, messages: ChatMessage[], signal?: AbortSignal): Promise<string> {
  let text = "";
  const request = { model: modelName ?? model.chatModel ?? FALLBACK_MODEL, messages, temperature: 0 };
  for await (const chunk of streamChat(model.connection, request, signal)) if (chunk.type === "text") text += chunk.delta;
  return text.trim();
}
