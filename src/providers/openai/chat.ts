import { openOutbound, OutboundFailed, OutboundRefused, OutboundTimeout } from "../../net/outbound.ts";
import { ProviderError, type ProviderConnection } from "../connection.ts";

export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  tool_calls?: ToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface ToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export interface ToolDefinition {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolDefinition[];
  temperature?: number;
  max_tokens?: number;
  /** Structured output, e.g. `{ type: "json_schema", json_schema: { name, schema, strict } }`. */
  response_format?: Record<string, unknown>;
}

export type ChatChunk =
  | { type: "text"; delta: string }
  | { type: "tool_calls"; calls: ToolCall[] }
  | { type: "done"; finishReason: string | null };

/** Time to the response headers; the stream itself may then take as long as the model needs. */
const CONNECT_TIMEOUT_MS = 15_000;

/**
 * Streams an OpenAI-style chat completion (`POST {base}/chat/completions`, `stream: true`): text
 * deltas as they arrive, then any tool calls assembled from their fragments.
 */
export async function* streamChat(connection: ProviderConnection, request: ChatRequest, signal?: AbortSignal): AsyncGenerator<ChatChunk> {
  const headers: Record<string, string> = { "content-type": "application/json", accept: "text/event-stream" };
  if (connection.apiKey) headers.authorization = `Bearer ${connection.apiKey}`;
  const body = JSON.stringify({ ...request, tools: request.tools?.length ? request.tools : undefined, stream: true });
  // The deadline covers getting the response headers only; the stream may then take as long as it takes.
  const connecting = new AbortController();
  const deadline = setTimeout(() => connecting.abort(new DOMException("connect time-out", "TimeoutError")), CONNECT_TIMEOUT_MS);
  let response: Response;
  try {
    response = await openOutbound(
      `${connection.baseUrl}/chat/completions`,
      { method: "POST", headers, body, signal: signal ? AbortSignal.any([signal, connecting.signal]) : connecting.signal },
      connection.policy,
      connecting.signal,
      CONNECT_TIMEOUT_MS,
    );
  } catch (error) {
    throw asProviderError(error);
  } finally {
    clearTimeout(deadline);
  }
  if (!response.ok) throw new ProviderError(`the model server answered HTTP ${response.status}: ${(await response.text()).slice(0, 300)}`, response.status);

  const calls = new Map<number, ToolCall>();
  let finishReason: string | null = null;
  for await (const data of serverSentEvents(response)) {
    if (data === "[DONE]") break;
    let chunk: { choices?: { delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] }; finish_reason?: string | null }[] };
    try {
      chunk = JSON.parse(data);
    } catch {
      throw new ProviderError(`the model server sent something that is not JSON: ${data.slice(0, 200)}`);
    }
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.delta?.content) yield { type: "text", delta: choice.delta.content };
    for (const fragment of choice.delta?.tool_calls ?? []) {
      const call = calls.get(fragment.index) ?? { id: "", type: "function" as const, function: { name: "", arguments: "" } };
      if (fragment.id) call.id = fragment.id;
      if (fragment.function?.name) call.function.name += fragment.function.name;
      if (fragment.function?.arguments) call.function.arguments += fragment.function.arguments;
      calls.set(fragment.index, call);
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  if (calls.size) yield { type: "tool_calls", calls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call) };
  yield { type: "done", finishReason };
}

/** `data:` payloads of a text/event-stream, one per event. */
async function* serverSentEvents(response: Response): AsyncGenerator<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += value;
    let boundary: number;
    while ((boundary = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const event = buffer.slice(0, boundary);
      buffer = buffer.slice(boundary).replace(/^\r?\n\r?\n/, "");
      const data = event
        .split(/\r?\n/)
        .filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, ""))
        .join("\n");
      if (data) yield data;
    }
  }
  const tail = buffer.trim();
  if (tail.startsWith("data:")) yield tail.slice(5).trim();
}

export function asProviderError(error: unknown): ProviderError {
  if (error instanceof ProviderError) return error;
  if (error instanceof OutboundTimeout) return new ProviderError(`the model server did not answer in time: ${error.message}`);
  if (error instanceof OutboundRefused) return new ProviderError(`refused by the URL rules: ${error.message}`);
  if (error instanceof OutboundFailed) return new ProviderError(`cannot reach the model server: ${error.message}`);
  return new ProviderError((error as Error)?.message ?? String(error));
}
