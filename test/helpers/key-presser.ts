// A language-model agent that presses keys: a local OpenAI-protocol model answers whatever the
// other side says with the send_dtmf tool, then says it did. For tests of keys the agent sends.
import type { ApiClient } from "./client.ts";
import { startFakeOpenAI } from "./fake-openai.ts";

export async function keyPresserAgent(api: ApiClient, token: string, digits: string): Promise<{ agentId: string; stop: () => void }> {
  const model = startFakeOpenAI();
  model.script((body) => (body.messages.at(-1).role === "tool" ? { text: ["Done."] } : { toolCalls: [{ name: "send_dtmf", arguments: { digits } }] }));
  const created = async (path: string, body: unknown) => {
    const res = await api.post(path, body, { token });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${res.text}`);
    return res.body.id as string;
  };
  const provider = await created("/v1/providers", { name: `local model ${model.url}`, kind: "openai-compatible", base_url: model.url });
  const agentId = await created("/v1/agents", { name: "Key presser", first_message: "Hello.", brain: { type: "llm", provider_id: provider, model: "fake-chat" }, tools: [{ type: "send_dtmf" }] });
  return { agentId, stop: () => model.stop() };
}
