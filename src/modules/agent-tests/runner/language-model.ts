import { streamChat, type ChatMessage } from "../../../providers/openai/chat.ts";
import type { LanguageModel } from "./deps.ts";

/** When a connection names no chat model (settings.chat_model) and the case none either: OpenAI's small one. */
const FALLBACK_MODEL = "gpt-4o-mini";

/** A whole chat completion's text (the caller and the judge want the full answer, not its stream). */
export async function completeChat(model: LanguageModel, modelName: string | undefined, messages: ChatMessage[], options: { temperature?: number; signal?: AbortSignal; responseFormat?: Record<string, unknown> } = {}): Promise<string> {
  let text = "";
  const request = {
    model: modelName ?? model.chatModel ?? FALLBACK_MODEL,
    messages,
    temperature: options.temperature ?? 0,
    ...(options.responseFormat ? { response_format: options.responseFormat } : {}),
  };
  for await (const chunk of streamChat(model.connection, request, options.signal)) if (chunk.type === "text") text += chunk.delta;
  return text.trim();
}
