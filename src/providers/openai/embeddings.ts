import { sendOutbound } from "../../net/outbound.ts";
import { ProviderError, type ProviderConnection } from "../connection.ts";
import { asProviderError } from "./chat.ts";

/** `POST {base}/embeddings` for a batch of texts; vectors come back in input order, L2-normalised. */
export async function embedRemote(connection: ProviderConnection, model: string, texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (connection.apiKey) headers.authorization = `Bearer ${connection.apiKey}`;
  let response;
  try {
    response = await sendOutbound(
      `${connection.baseUrl}/embeddings`,
      { method: "POST", headers, body: JSON.stringify({ model, input: texts }), timeoutMs: 60_000, maxResponseBytes: 64 * 1024 * 1024, signal },
      connection.policy,
    );
  } catch (error) {
    throw asProviderError(error);
  }
  const text = new TextDecoder().decode(response.body);
  if (response.status !== 200) throw new ProviderError(`the embeddings endpoint answered HTTP ${response.status}: ${text.slice(0, 300)}`, response.status);
  let parsed: { data?: { index: number; embedding: number[] }[] };
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ProviderError("the embeddings endpoint did not answer JSON");
  }
  const rows = [...(parsed.data ?? [])].sort((a, b) => a.index - b.index);
  if (rows.length !== texts.length) throw new ProviderError(`asked for ${texts.length} embeddings, got ${rows.length}`);
  return rows.map((row) => normalise(Float32Array.from(row.embedding)));
}

function normalise(vector: Float32Array): Float32Array {
  let norm = 0;
  for (const v of vector) norm += v * v;
  norm = Math.sqrt(norm) || 1;
  return vector.map((v) => v / norm);
}
